//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "error: the benchmark reads /proc: it runs on Linux only")
	os.Exit(1)
}
