//go:build !linux

package postgres

import (
	"os"
	"syscall"
)

var interrupt = os.Interrupt

func serverUser(string) (*syscall.SysProcAttr, error) { return nil, nil }

func withDeathSignal(attr *syscall.SysProcAttr) *syscall.SysProcAttr { return attr }
