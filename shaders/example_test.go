package shaders_test

import (
	"fmt"
	"io/fs"

	"github.com/wgtensor/wgtensor/shaders"
)

// The template of a few pipeline keys, as a profile reports them.
func ExampleFileOf() {
	for _, key := range []string{
		"matmul/tiled/false/true/b1",
		"matmul/register/false/false/b0+elementwise/2/6419e48a6d8bad5162d4416c/false",
		"reduce/argmax/f32/true/false/false",
		"pool2d_grad/true/scatter/vec4",
		"softmax_xent_grad_mean/false",
		"elementwise/3/e6194c165e381bb461d5c668",
	} {
		fmt.Printf("%q\n", shaders.FileOf(key))
	}
	// Output:
	// "matmul_tiled.wgsl"
	// "matmul_register.wgsl"
	// "reduce.wgsl"
	// "pool_scatter.wgsl"
	// "xent.wgsl"
	// ""
}

// The templates, by file name.
func ExampleSources() {
	files, err := fs.Glob(shaders.Sources, "*.wgsl")
	if err != nil {
		panic(err)
	}
	for _, name := range files {
		fmt.Println(name)
	}
	// Output:
	// attention.wgsl
	// conv.wgsl
	// copy.wgsl
	// cumsum.wgsl
	// gather.wgsl
	// half.wgsl
	// layernorm.wgsl
	// layernorm_grad.wgsl
	// layernorm_sums.wgsl
	// layernorm_vec4.wgsl
	// matmul.wgsl
	// matmul_register.wgsl
	// matmul_small.wgsl
	// matmul_tiled.wgsl
	// numerics.wgsl
	// onehot.wgsl
	// philox.wgsl
	// pool.wgsl
	// pool_grad.wgsl
	// pool_scatter.wgsl
	// reduce.wgsl
	// scatter.wgsl
	// softmax.wgsl
	// topk.wgsl
	// xent.wgsl
}
