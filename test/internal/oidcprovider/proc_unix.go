//go:build unix

package oidcprovider

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts node in its own process group so the cleanup reaches anything it spawns.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
