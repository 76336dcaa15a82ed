// Package shaders holds the WGSL sources of wgtensor's kernels: the
// templates in this directory (Sources), which package internal/kernels
// fills, and in testdata/ the source of every variant generated from them.
package shaders

import "embed"

// Sources holds the kernel templates, the .wgsl files of this directory,
// each under its file name.
//
//go:embed *.wgsl
var Sources embed.FS
