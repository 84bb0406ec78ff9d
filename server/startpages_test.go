package server_test

import (
	"bufio"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/internal/startpages"
)

// TestSubprocessReleasesStartPages: `cursus mcp serve` hands the pages of
// its binary that its start touched back once the start is over (the
// first request after tools/list, on a goroutine of its own), and keeps
// them with CURSUS_KEEP_START_PAGES=1.
func TestSubprocessReleasesStartPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("startpages.Release acts on Linux only")
	}
	resident := func(keep string) (atList, after residentPages) {
		cmd := exec.Command(cursusBin(t), "mcp", "serve", "--log-level", "debug")
		cmd.Env = append(serveEnv(), startpages.EnvKeep+"="+keep)
		logs, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdin, stdout := startPiped(t, cmd)
		// The release logs once it is over (with 0 MiB when it kept the
		// pages): the test waits for that line, not for a time.
		releasedLog := make(chan struct{})
		logsRead := make(chan struct{})
		go func() {
			defer close(logsRead)
			sc := bufio.NewScanner(logs)
			for seen := false; sc.Scan(); {
				if !seen && strings.Contains(sc.Text(), "start-up pages released") {
					seen = true
					close(releasedLog)
				}
			}
		}()
		defer func() {
			stdin.Close()
			<-logsRead
			if err := cmd.Wait(); err != nil {
				t.Error(err)
			}
		}()
		br := bufio.NewReader(stdout)
		answer := func(id string, lines ...string) {
			t.Helper()
			if _, err := io.WriteString(stdin, strings.Join(lines, "\n")+"\n"); err != nil {
				t.Fatal(err)
			}
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					t.Fatalf("no answer %s: %v", id, err)
				}
				if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`+id+`,`) {
					return
				}
			}
		}
		answer("2", initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		atList = readResident(cmd.Process.Pid)
		answer("3", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tools__help","arguments":{}}}`)
		select {
		case <-releasedLog:
		case <-time.After(time.Minute):
			t.Fatal("no \"start-up pages released\" line in the server's log after its first call")
		}
		return atList, readResident(cmd.Process.Pid)
	}

	atList, after := resident("")
	if atList.fileKiB < 4<<10 {
		t.Fatalf("%d KiB of file pages resident at tools/list: the server's binary should have more", atList.fileKiB)
	}
	// A cheap call refaults some of what was released (the runtime's and
	// the C library's code, the registry's): about 45 % of it in a cgo build.
	if after.fileKiB > atList.fileKiB*3/4 {
		t.Errorf("file pages resident: %d KiB at tools/list, %d KiB after a call; want at most three quarters", atList.fileKiB, after.fileKiB)
	}
	atList, after = resident("1")
	if after.fileKiB < atList.fileKiB {
		t.Errorf("with %s=1, file pages resident: %d KiB at tools/list, %d KiB after a call; want them kept", startpages.EnvKeep, atList.fileKiB, after.fileKiB)
	}
}
