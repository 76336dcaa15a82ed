package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMESnippetsAreThisProgram checks that README.md's Go snippets are,
// in order, the regions of main.go between "readme:begin" and "readme:end",
// so that the README shows only code that compiles and runs (CI runs this
// program). To change a snippet, change main.go and copy the region,
// without its indentation, into README.md.
func TestREADMESnippetsAreThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	program, err := os.ReadFile("main.go")
	require.NoError(t, err)

	snippets := fencedGoBlocks(string(readme))
	regions := markedRegions(string(program))
	require.NotEmpty(t, regions, "main.go marks no region")
	require.Len(t, snippets, len(regions), "README.md has %d Go snippets, main.go marks %d regions", len(snippets), len(regions))
	for i := range regions {
		assert.Equal(t, regions[i], snippets[i], "README snippet %d differs from main.go's region %d", i+1, i+1)
	}
}

// fencedGoBlocks returns the contents of the ```go blocks of a Markdown text.
func fencedGoBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```go":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// markedRegions returns the lines between each "// readme:begin" and
// "// readme:end" of a Go file, less the indentation of the begin marker.
func markedRegions(src string) []string {
	var regions []string
	var cur []string
	indent, in := "", false
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "// readme:begin":
			in, cur = true, nil
			indent = line[:len(line)-len(strings.TrimLeft(line, "\t "))]
		case in && trimmed == "// readme:end":
			in = false
			regions = append(regions, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, strings.TrimPrefix(line, indent))
		}
	}
	return regions
}
