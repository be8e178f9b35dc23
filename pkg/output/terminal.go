package output

import (
	"os"

	"github.com/mattn/go-isatty"
)

// IsTerminal says whether w is a terminal (colour, list progress).
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
