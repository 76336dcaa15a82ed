package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// dump records a small history on the test device and writes it to a file.
func dump(t *testing.T) (path, text string) {
	t.Helper()
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	b, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	b.Describe(1, wgpu.BufferTag{Category: "parameter", Shape: "<b>[1024]</b>"})
	d.MarkHistory("step 1")
	require.NoError(t, b.Release())
	h, err := d.History()
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = h.WriteTo(&buf)
	require.NoError(t, err)
	path = filepath.Join(t.TempDir(), "history.json")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path, buf.String()
}

func TestRenderToStdoutAndToAFile(t *testing.T) {
	in, text := dump(t)
	var stdout bytes.Buffer
	require.NoError(t, run([]string{in}, nil, &stdout))
	page := stdout.String()
	require.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	require.Contains(t, page, "step 1")
	require.NotContains(t, page, "<b>")

	out := filepath.Join(t.TempDir(), "view.html")
	stdout.Reset()
	require.NoError(t, run([]string{"-o", out, in}, nil, &stdout))
	require.Zero(t, stdout.Len())
	file, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, page, string(file))

	// Flags after the dump, and the dump from stdin.
	require.NoError(t, os.Remove(out))
	require.NoError(t, run([]string{"-", "-o", out}, strings.NewReader(text), &stdout))
	file, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, page, string(file))
}

func TestBadDumpsExit1WithTheReason(t *testing.T) {
	_, text := dump(t)
	dir := t.TempDir()
	for name, c := range map[string]struct{ dump, want string }{
		"truncated": {text[:len(text)/2], "truncated"},
		"newer":     {strings.Replace(text, `"version":1`, `"version":7`, 1), "written by a newer wgtensor (format version 7"},
		"edited":    {strings.Replace(text, `"step 1"`, `"step 2"`, 1), "checksum does not match"},
		"not json":  {"<!DOCTYPE html>", "not a memory history"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".json")
			require.NoError(t, os.WriteFile(path, []byte(c.dump), 0o644))
			out := filepath.Join(dir, name+".html")
			err := run([]string{"-o", out, path}, nil, new(bytes.Buffer))
			require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
			require.ErrorContains(t, err, path+": wgpu: read memory history")
			require.ErrorContains(t, err, c.want)
			require.Equal(t, 1, exitStatus(err))
			require.NoFileExists(t, out, "no page for a bad dump")
		})
	}
	err := run([]string{filepath.Join(dir, "missing.json")}, nil, new(bytes.Buffer))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Equal(t, 1, exitStatus(err))
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"a.json", "b.json"}, {"-x", "a.json"}, {"-o"}} {
		err := run(args, nil, new(bytes.Buffer))
		require.Error(t, err, "%q", args)
		require.Equal(t, 2, exitStatus(err), "%q: %v", args, err)
	}
	var stdout bytes.Buffer
	require.NoError(t, run([]string{"-h"}, nil, &stdout))
	require.Contains(t, stdout.String(), "usage:\n  wgmemview [-o view.html] history.json")
	require.Zero(t, exitStatus(nil))
}
