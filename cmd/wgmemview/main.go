// Command wgmemview renders a memory history dump as the memory viewer: one
// HTML file, with its data, script and styles inline, that opens offline.
//
//	wgmemview [-o view.html] history.json
//
// The dump is one that wgpu's History.WriteTo wrote: a program's
// (Device.History), or the device's on out-of-memory or loss
// (HistoryOptions.OnOOM, OnLoss). "-" reads it from stdin. Without -o the
// page goes to stdout.
//
// A usage error exits 2; a dump that is not a history, truncated, from a
// newer version or edited exits 1, saying which.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/wgtensor/wgtensor/memview"
	"github.com/wgtensor/wgtensor/wgpu"
)

const usage = `wgmemview renders a memory history dump (wgpu's History.WriteTo) as one
self-contained HTML page that opens offline.

usage:
  wgmemview [-o view.html] history.json

  -o FILE   write the page to FILE (default: stdout)

"-" as the dump reads it from stdin. Open the page in a browser: it fetches
nothing.`

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "wgmemview:", err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(os.Stderr, usage)
	}
	os.Exit(exitStatus(err))
}

// usageError is a command line wgmemview cannot run; main prints usage
// after it and exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitStatus returns the exit status after err: 0 for none, 2 for a usage
// error, 1 for anything else (a bad dump, a failed write).
func exitStatus(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// run runs the command line args: it reads the dump they name (stdin for
// "-") and writes the page to -o's file or to stdout.
func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("wgmemview", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "")
	// Flags may follow the dump's name too.
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usage)
			return nil
		} else if err != nil {
			return usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(pos) == 0:
		return usageError{"no dump named"}
	case len(pos) > 1:
		return usageError{fmt.Sprintf("one dump at a time, not %q", pos)}
	}

	h, err := readDump(pos[0], stdin)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := memview.WriteFile(*out, h); err != nil {
			return fmt.Errorf("writing %s: %w", *out, err)
		}
		return nil
	}
	w := bufio.NewWriter(stdout)
	if err := memview.Write(w, h); err != nil {
		return err
	}
	return w.Flush()
}

// readDump reads and checks the dump at path ("-": stdin).
func readDump(path string, stdin io.Reader) (*wgpu.History, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	h, err := wgpu.ReadHistory(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}
