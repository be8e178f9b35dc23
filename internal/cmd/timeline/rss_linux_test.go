//go:build linux

package timeline

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// peakRSS is this process's peak resident memory in bytes (VmHWM), 0
// when it cannot be read. A child's rusage from wait4 would not do: it
// carries the forking parent's peak over the exec.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
