//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// sysProcAttr puts a child in its own process group, so that signals reach
// what it starts too, and kills it if the benchmark dies without cleaning up.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// memory is what /proc/PID/status says about a process's resident set.
type memory struct {
	hwm  int64 // VmHWM, peak resident set, bytes
	rss  int64 // VmRSS, resident set now, bytes
	anon int64 // RssAnon, the part of rss that is not the binary's (or any file's) pages, bytes
}

// peak is the larger of VmHWM and VmRSS.
func (m memory) peak() int64 { return max(m.hwm, m.rss) }

// readMemory reads VmHWM and VmRSS of a running process.
func readMemory(pid int) (memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, fmt.Errorf("read memory of pid %d: %w", pid, err)
	}
	var m memory
	for line := range bytes.Lines(b) {
		switch {
		case bytes.HasPrefix(line, []byte("VmHWM:")):
			m.hwm, err = parseKiB(line)
		case bytes.HasPrefix(line, []byte("VmRSS:")):
			m.rss, err = parseKiB(line)
		case bytes.HasPrefix(line, []byte("RssAnon:")):
			m.anon, err = parseKiB(line)
		}
		if err != nil {
			return memory{}, fmt.Errorf("read memory of pid %d: %w", pid, err)
		}
	}
	return m, nil
}

// parseKiB parses a /proc/PID/status line such as "VmRSS:	  1234 kB".
func parseKiB(line []byte) (int64, error) {
	f := bytes.Fields(line)
	if len(f) != 3 || string(f[2]) != "kB" {
		return 0, fmt.Errorf("unexpected line %q", line)
	}
	n, err := strconv.ParseInt(string(f[1]), 10, 64)
	return n * 1024, err
}

// maxRSS is the peak resident set of an exited child, from wait4's rusage.
// It is never below the benchmark's own peak RSS when the child started: Go
// starts children with vfork (CLONE_VM), and execve records the high-water
// mark of the memory it leaves, the benchmark's, as the child's maxrss.
func maxRSS(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024 // kilobytes on Linux
	}
	return 0
}

// readCPU reads the user+system CPU time of a running process, all threads,
// from /proc/PID/stat, to the resolution of the clock tick (10 ms).
func readCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read CPU time of pid %d: %w", pid, err)
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// count fields from after its closing parenthesis (field 3, state).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("read CPU time of pid %d: unexpected stat %q", pid, b)
	}
	f := bytes.Fields(b[i+1:])
	const utime, stime = 14 - 3, 15 - 3 // fields 14 and 15 of proc(5)
	if len(f) <= stime {
		return 0, fmt.Errorf("read CPU time of pid %d: unexpected stat %q", pid, b)
	}
	var ticks int64
	for _, s := range [][]byte{f[utime], f[stime]} {
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read CPU time of pid %d: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / time.Duration(clockTicks()), nil
}

// clockTicks is sysconf(_SC_CLK_TCK), the unit of /proc/PID/stat times,
// which the kernel passes to every process as AT_CLKTCK in its auxiliary
// vector; 100 if that cannot be read.
func clockTicks() int64 {
	const atClkTck = 17
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return 100
	}
	for ; len(b) >= 16; b = b[16:] {
		if binary.NativeEndian.Uint64(b) == atClkTck {
			if v := int64(binary.NativeEndian.Uint64(b[8:])); v > 0 {
				return v
			}
		}
	}
	return 100
}
