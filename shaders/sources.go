package shaders

import (
	"embed"
	"strings"
)

// Sources holds the kernel templates, the .wgsl files of this directory,
// each under its file name.
//
//go:embed *.wgsl
var Sources embed.FS

// families names the template of each family that has one file, by the
// first part of its keys.
var families = map[string]string{
	"reduce":                       "reduce.wgsl",
	"softmax":                      "softmax.wgsl",
	"copy":                         "copy.wgsl",
	"gather":                       "gather.wgsl",
	"scatter_add":                  "scatter.wgsl",
	"conv2d":                       "conv.wgsl",
	"pool2d":                       "pool.wgsl",
	"layer_norm":                   "layernorm.wgsl",
	"layer_norm_grad":              "layernorm_grad.wgsl",
	"layer_norm_grad_sums":         "layernorm_sums.wgsl",
	"layer_norm_grad_columns":      "layernorm_grad.wgsl",
	"layer_norm_grad_columns_vec4": "layernorm_vec4.wgsl",
	"one_hot":                      "onehot.wgsl",
	"scan":                         "cumsum.wgsl",
	"top_k":                        "topk.wgsl",
	"attention":                    "attention.wgsl",
}

// FileOf names the file of Sources whose template the kernel of a
// pipeline key (see the package doc) is filled from; for a product with an
// epilogue, the product's. It returns "" for the kernels generated without
// a template (elementwise programs, the matrix product's vec4 kernel) and
// for keys of no family here.
func FileOf(key string) string {
	key, _, _ = strings.Cut(key, "+")
	family, rest, _ := strings.Cut(key, "/")
	switch {
	case family == "matmul":
		switch kind, _, _ := strings.Cut(rest, "/"); kind {
		case "tiled", "register", "small":
			return "matmul_" + kind + ".wgsl"
		}
		return ""
	case family == "pool2d_grad":
		if strings.Contains(rest, "/scatter") {
			return "pool_scatter.wgsl"
		}
		return "pool_grad.wgsl"
	case strings.HasPrefix(family, "softmax_xent"):
		return "xent.wgsl"
	}
	return families[family]
}
