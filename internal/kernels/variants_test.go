package kernels

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wgtensor/wgtensor/wgpu"
)

// variant is one kernel the library can produce, as the golden test pins
// it: shaders/testdata/Name.wgsl holds its source.
type variant struct {
	Name   string
	Kernel any // the family's value: MatMul, Reduce, ...
	Spec   wgpu.KernelSpec
	// ParamsLen is the length of the block the dispatch code encodes for
	// it, which must be the size the spec declares.
	ParamsLen int
}

// The ranks of the variants of Copy and of MatMul's batch: those the
// tests use, each metadata array of one vec4 and of two.
var (
	copyRanks  = []int{0, 1, 2, 3, 4, 5}
	batchRanks = []int{0, 1, 2, 5}
)

// variants lists every kernel variant of the fixed families (each flag,
// op and type tensor/ chooses from; TestVariantsCoverEveryFlag checks that
// against the families' fields and constants) and representative
// elementwise programs.
func variants() []variant {
	var vs []variant
	add := func(name string, k interface{ Spec() wgpu.KernelSpec }, block Block) {
		vs = append(vs, variant{Name: name, Kernel: k, Spec: k.Spec(), ParamsLen: len(block.Bytes())})
	}
	for _, kind := range []string{"tiled", "register", "vec4", "small"} {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, r := range batchRanks {
					m := MatMul{TransA: ta, TransB: tb, BatchRank: r, Register: kind == "register", Vec4: kind == "vec4", Small: kind == "small"}
					add(fmt.Sprintf("matmul_%s%s%s_b%d", kind, flag(ta, "_ta"), flag(tb, "_tb"), r), m, m.params())
				}
			}
		}
	}
	for _, kind := range []string{"tiled", "register", "small"} {
		for _, st := range []Storage{Float16, BFloat16} {
			m := MatMul{TransA: st == BFloat16, TransB: kind == "small", BatchRank: 1, Register: kind == "register", Small: kind == "small", AStorage: st, BStorage: st}
			add(fmt.Sprintf("matmul_%s_%s%s%s_b1", kind, st, flag(m.TransA, "_ta"), flag(m.TransB, "_tb")), m, m.params())
		}
	}
	for _, st := range []Storage{Float16, BFloat16} { // half-width operands on the Vec4 kernel
		m := MatMul{TransA: st == BFloat16, TransB: st == Float16, BatchRank: 1, Vec4: true, AStorage: st, BStorage: st}
		add(fmt.Sprintf("matmul_vec4_%s%s%s_b1", st, flag(m.TransA, "_ta"), flag(m.TransB, "_tb")), m, m.params())
	}
	for _, kind := range []string{"tiled", "register", "small", "vec4"} { // int8 weights
		for _, tb := range []bool{false, true} {
			m := MatMul{TransB: tb, Register: kind == "register", Vec4: kind == "vec4", Small: kind == "small", BStorage: Int8}
			add(fmt.Sprintf("matmul_%s_b_int8%s_b0", kind, flag(tb, "_tb")), m, m.params())
		}
	}
	for _, op := range reduceOps {
		for _, T := range types {
			for _, r := range []Reduce{{PerThread: true}, {}, {Segments: true}, {PerThread: true, Indexed: true}} {
				if r.Indexed && !op.Arg() {
					continue // only the arg reductions' second step reads indices
				}
				r.Op, r.In = op, T
				kind := "group"
				if r.PerThread {
					kind = "thread"
				}
				add(fmt.Sprintf("reduce_%s_%s_%s%s%s", op, T, kind, flag(r.Segments, "_segments"), flag(r.Indexed, "_indexed")), r, &RowParams{})
			}
		}
	}
	for _, r := range []Reduce{{Op: Sum, PerThread: true}, {Op: Mean}, {Op: Max, Segments: true}, {Op: ArgMax, PerThread: true}} {
		for _, s := range []Storage{Float16, BFloat16} {
			r.In, r.Storage = F32, s
			kind := "group"
			if r.PerThread {
				kind = "thread"
			}
			add(fmt.Sprintf("reduce_%s_%s_%s%s", r.Op, s, kind, flag(r.Segments, "_segments")), r, &RowParams{})
		}
	}
	for _, st := range []Storage{Float16, BFloat16} {
		add("layer_norm_"+st.String(), LayerNorm{Storage: st}, &LayerNormParams{})
		add("softmax_"+st.String()+"_thread", Softmax{PerThread: true, Storage: st}, &RowParams{})
		add("softmax_log_"+st.String()+"_group", Softmax{Log: true, Storage: st}, &RowParams{})
	}
	for _, log := range []bool{false, true} {
		for _, per := range []bool{false, true} {
			kind := "group"
			if per {
				kind = "thread"
			}
			add("softmax"+flag(log, "_log")+"_"+kind, Softmax{Log: log, PerThread: per}, &RowParams{})
		}
	}
	for _, r := range copyRanks {
		c := Copy{Rank: r}
		add(fmt.Sprintf("copy_r%d", r), c, c.params())
	}
	for _, r := range []int{1, 2} {
		c := Copy{Rank: r, PerWord: 2}
		add(fmt.Sprintf("copy_r%d_half", r), c, c.params())
		c.PerWord = 4
		add(fmt.Sprintf("copy_r%d_byte", r), c, c.params())
	}
	add("gather", Gather{}, &GatherParams{})
	add("gather_half", Gather{PerWord: 2}, &GatherParams{})
	add("gather_byte", Gather{PerWord: 4}, &GatherParams{})
	for _, T := range types {
		for _, byIndex := range []bool{false, true} {
			add("scatter_add_"+string(T)+flag(byIndex, "_by_index"), ScatterAdd{T: T, ByIndex: byIndex}, &ScatterAddParams{})
		}
	}
	for _, op := range convOps {
		add("conv2d_"+string(op), Conv2D{Op: op}, &Conv2DParams{})
	}
	add("conv2d_forward_vec4", Conv2D{Op: ConvForward, Vec4: true}, &Conv2DParams{})
	add("conv2d_filter_vec4", Conv2D{Op: ConvFilter, Vec4: true}, &Conv2DParams{})
	add("conv2d_input_vec4", Conv2D{Op: ConvInput, Vec4: true}, &Conv2DParams{})
	add("conv2d_input_unit", Conv2D{Op: ConvInput, Unit: true}, &Conv2DParams{})
	add("conv2d_forward_b4", Conv2D{Op: ConvForward, B4: true}, &Conv2DParams{})
	add("conv2d_forward_narrow_b4", Conv2D{Op: ConvForward, Narrow: true, B4: true}, &Conv2DParams{})
	add("conv2d_filter_narrow_short_b4", Conv2D{Op: ConvFilter, Narrow: true, Short: true, B4: true}, &Conv2DParams{})
	add("conv2d_input_vec4_narrow_unit", Conv2D{Op: ConvInput, Vec4: true, Narrow: true, Unit: true}, &Conv2DParams{})
	for _, op := range convOps {
		add("conv2d_"+string(op)+"_narrow", Conv2D{Op: op, Narrow: true}, &Conv2DParams{})
		add("conv2d_"+string(op)+"_vec4_narrow", Conv2D{Op: op, Vec4: true, Narrow: true}, &Conv2DParams{})
		add("conv2d_"+string(op)+"_narrow_short", Conv2D{Op: op, Narrow: true, Short: true}, &Conv2DParams{})
		add("conv2d_"+string(op)+"_vec4_narrow_short", Conv2D{Op: op, Vec4: true, Narrow: true, Short: true}, &Conv2DParams{})
	}
	for _, dense := range []bool{false, true} {
		add("softmax_xent"+flag(dense, "_dense"), SoftmaxXent{Dense: dense}, &RowParams{})
		add("softmax_xent_grad"+flag(dense, "_dense"), SoftmaxXent{Dense: dense, Grad: true}, &RowParams{})
	}
	vs = append(vs, poolVariants()...)
	vs = append(vs, attentionVariants()...)
	vs = append(vs, layerNormVariants()...)
	vs = append(vs, convVariants()...)
	vs = append(vs, epilogueVariants()...)
	vs = append(vs, scatterVariants()...)
	for _, p := range elementwisePrograms() {
		vs = append(vs, variant{Name: p.name, Kernel: p.k, Spec: p.k.Spec(),
			ParamsLen: len(p.k.Params(0, 0, 0, make([]NodeParams, len(p.k.Nodes)), make([]uint32, p.k.MetaWords())))})
	}
	return vs
}

func flag(on bool, s string) string {
	if on {
		return s
	}
	return ""
}

// The reductions and types: TestVariantsCoverEveryFlag checks that these
// are every constant of the package of type ReduceOp and Type.
var (
	reduceOps = []ReduceOp{Sum, Mean, Prod, Max, Min, ArgMax, ArgMin}
	types     = []Type{F32, I32, U32}
	convOps   = []ConvOp{ConvForward, ConvInput, ConvFilter}
)

type namedProgram struct {
	name string
	k    Elementwise
}

// elementwisePrograms are representative programs of the elementwise
// generator: a unary op and a binary op with broadcasting for each type, a
// where, casts, a fused chain, the vec4 form (with a leaf read as whole
// vec4s through strides and a splat one), half-width leaves and outputs
// (one, two and four elements per thread) and a Philox generator.
func elementwisePrograms() []namedProgram {
	var ps []namedProgram
	for _, T := range types {
		ps = append(ps, namedProgram{fmt.Sprintf("elementwise_%s_square", T), Elementwise{
			Leaves: []Leaf{{Type: T, Strided: false}},
			Nodes:  []Node{{Name: "square", Out: T, Expr: "a0 * a0", Args: []Ref{{true, 0}}, Store: true}}}})
		ps = append(ps, namedProgram{fmt.Sprintf("elementwise_%s_add_broadcast", T), Elementwise{Rank: 3,
			Leaves: []Leaf{{Type: T, Strided: true}, {Type: T, Strided: false}},
			Nodes:  []Node{{Name: "add", Out: T, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}, Store: true}}}})
	}
	ps = append(ps,
		namedProgram{"elementwise_f32_where_broadcast", Elementwise{Rank: 2,
			Leaves: []Leaf{{Type: U32, Strided: true}, {Type: F32, Strided: false}, {Type: F32, Strided: true}},
			Nodes:  []Node{{Name: "where", Out: F32, Expr: "select(a2, a1, a0 != 0u)", Args: []Ref{{true, 0}, {true, 1}, {true, 2}}, Store: true}}}},
		namedProgram{"elementwise_i32_cast_f32", Elementwise{
			Leaves: []Leaf{{Type: F32, Strided: false}},
			Nodes:  []Node{{Name: "cast", Out: I32, Expr: "i32(a0)", Args: []Ref{{true, 0}}, Store: true}}}},
		namedProgram{"elementwise_f32_cast_u32", Elementwise{
			Leaves: []Leaf{{Type: U32, Strided: false}},
			Nodes:  []Node{{Name: "cast", Out: F32, Expr: "f32(a0)", Args: []Ref{{true, 0}}, Store: true}}}},
		namedProgram{"elementwise_f32_mul_add_leaky_relu", Elementwise{
			Leaves: []Leaf{{Type: F32, Strided: false}, {Type: F32, Strided: false}, {Type: F32, Strided: false}},
			Nodes: []Node{
				{Name: "mul", Out: F32, Expr: "a0 * a1", Args: []Ref{{true, 0}, {true, 1}}},
				{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{false, 0}, {true, 2}}, Store: true},
				{Name: "leaky_relu", Out: F32, Expr: "select(a0 * s.x, a0, a0 > 0.0)", Args: []Ref{{false, 1}}, Store: true},
			}}},
		namedProgram{"elementwise_f32_add_relu_vec4", Elementwise{Vec4: true,
			Leaves: []Leaf{{Type: F32, Strided: false}, {Type: F32, Strided: false}},
			Nodes: []Node{
				{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}},
				{Name: "relu", Out: F32, Expr: "max(a0, 0.0)", Args: []Ref{{false, 0}}, Store: true},
			}}},
		namedProgram{"elementwise_f32_bias_where_vec4_strided", Elementwise{Vec4: true, Rank: 2,
			Leaves: []Leaf{{Type: F32, Strided: false}, {Type: F32, Strided: true}, {Type: F32, Strided: true, Splat: true}},
			Nodes: []Node{
				{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}},
				{Name: "maximum", Out: F32, Expr: "max(a0, a1)", Args: []Ref{{false, 0}, {true, 2}}, Store: true},
			}}},
		namedProgram{"elementwise_f16_widen", Elementwise{
			Leaves: []Leaf{{Type: F32, Storage: Float16}},
			Nodes:  []Node{{Name: "cast", Out: F32, Expr: "a0", Args: []Ref{{true, 0}}, Store: true}}}},
		namedProgram{"elementwise_f16_narrow_pairs", Elementwise{
			Leaves: []Leaf{{Type: F32}},
			Nodes:  []Node{{Name: "cast", Out: F32, Expr: "a0", Args: []Ref{{true, 0}}, Store: true, Storage: Float16}}}},
		namedProgram{"elementwise_bf16_add_broadcast_pairs", Elementwise{Rank: 2,
			Leaves: []Leaf{{Type: F32, Storage: BFloat16}, {Type: F32, Strided: true, Storage: BFloat16}, {Type: F32, Strided: true}},
			Nodes: []Node{
				{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}, Store: true, Storage: BFloat16},
				{Name: "mul", Out: F32, Expr: "a0 * a1", Args: []Ref{{false, 0}, {true, 2}}, Store: true},
			}}},
		namedProgram{"elementwise_f16_bias_vec4_strided", Elementwise{Vec4: true, Rank: 2,
			Leaves: []Leaf{{Type: F32, Storage: Float16}, {Type: F32, Strided: true, Storage: Float16}, {Type: F32, Strided: true, Splat: true, Storage: Float16}},
			Nodes: []Node{
				{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}},
				{Name: "mul", Out: F32, Expr: "a0 * a1", Args: []Ref{{false, 0}, {true, 2}}, Store: true, Storage: Float16},
			}}},
		namedProgram{"elementwise_i8_add_broadcast_quads", Elementwise{Rank: 2,
			Leaves: []Leaf{{Type: I32, Storage: Int8}, {Type: I32, Strided: true, Storage: Int8}, {Type: F32, Strided: true, Storage: Float16}},
			Nodes: []Node{
				{Name: "add", Out: I32, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}, Store: true, Storage: Int8},
				{Name: "mul", Out: F32, Expr: "f32(a0) * a1", Args: []Ref{{false, 0}, {true, 2}}, Store: true, Storage: Float16},
			}}},
		namedProgram{"elementwise_i8_mul_vec4_splat", Elementwise{Vec4: true, Rank: 2,
			Leaves: []Leaf{{Type: I32, Storage: Int8}, {Type: I32, Strided: true, Splat: true, Storage: Int8}},
			Nodes: []Node{
				{Name: "mul", Out: I32, Expr: "a0 * a1", Args: []Ref{{true, 0}, {true, 1}}, Store: true, Storage: Int8},
			}}},
		namedProgram{"elementwise_f32_rand_uniform", Elementwise{
			Nodes: []Node{{Name: "rand_uniform", Out: F32, Helpers: Philox, Store: true,
				Expr: "s.x + (s.y - s.x) * unit(philox(vec4<u32>(i, 0u, 0u, 0u), vec2<u32>(h2, h3)).x)"}}}},
	)
	return ps
}

// The variants cover every value of every field of the fixed families: both
// values of each flag, each op and type the package declares, and ranks of
// one vec4 of metadata and more. A field added to a family, or a constant
// added to ReduceOp or Type, fails here until variants produces it, so that
// no kernel the library can produce misses its golden file.
func TestVariantsCoverEveryFlag(t *testing.T) {
	consts := packageConsts(t)
	if !slices.Equal(consts["ReduceOp"], names(reduceOps)) {
		t.Errorf("the package declares the reductions %v; variants makes %v", consts["ReduceOp"], names(reduceOps))
	}
	if !slices.Equal(consts["ConvOp"], names(convOps)) {
		t.Errorf("the package declares the convolution products %v; variants makes %v", consts["ConvOp"], names(convOps))
	}
	if !slices.Equal(consts["Type"], names(types)) {
		t.Errorf("the package declares the types %v; variants makes %v", consts["Type"], names(types))
	}
	if !slices.Equal(consts["AttentionPass"], names(attentionPasses)) {
		t.Errorf("the package declares the attention passes %v; variants makes %v", consts["AttentionPass"], names(attentionPasses))
	}
	seen := map[reflect.Type]map[string]map[string]bool{} // family, field, values
	for _, v := range variants() {
		rv := reflect.ValueOf(v.Kernel)
		if seen[rv.Type()] == nil {
			seen[rv.Type()] = map[string]map[string]bool{}
		}
		for i := range rv.NumField() {
			f := rv.Type().Field(i)
			if seen[rv.Type()][f.Name] == nil {
				seen[rv.Type()][f.Name] = map[string]bool{}
			}
			seen[rv.Type()][f.Name][fmt.Sprint(rv.Field(i).Interface())] = true
		}
	}
	for _, family := range []any{MatMul{}, Reduce{}, Softmax{}, Copy{}, Gather{}, Conv2D{}, Elementwise{},
		Pool2D{}, Pool2DGrad{}, OneHot{}, Scan{}, TopK{}, LayerNorm{}, Attention{}} {
		ft := reflect.TypeOf(family)
		if seen[ft] == nil {
			t.Errorf("no variant of %s", ft.Name())
			continue
		}
		for i := range ft.NumField() {
			f := ft.Field(i)
			got := seen[ft][f.Name]
			var want []string
			switch {
			case ft == reflect.TypeFor[Elementwise]() && f.Type.Kind() != reflect.Bool:
				continue // a program: elementwisePrograms picks representative ones
			case f.Type.Kind() == reflect.Bool:
				want = []string{"false", "true"}
			case f.Type == reflect.TypeFor[ReduceOp]():
				want = names(reduceOps)
			case f.Type == reflect.TypeFor[Type]():
				want = names(types)
			case f.Type == reflect.TypeFor[ConvOp]():
				want = names(convOps)
			case f.Type == reflect.TypeFor[AttentionPass]():
				want = names(attentionPasses)
			case f.Type == reflect.TypeFor[Storage]():
				want = []string{Word.String(), Float16.String(), BFloat16.String()}
				switch {
				case ft == reflect.TypeFor[Elementwise]() || ft == reflect.TypeFor[MatMul]() && f.Name == "BStorage":
					want = append(want, Int8.String()) // int8 tensors' ops, and int8 weights
				case ft == reflect.TypeFor[Conv2D]() && f.Name == "Filter":
					want = append(want, Int8.String()) // int8 filters
				}
			case ft == reflect.TypeFor[Attention]() && f.Type.Kind() == reflect.Int: // sizes, not ranks
				want = attentionSizes[f.Name]
			case f.Name == "PerWord": // words, halves, bytes
				want = []string{"0", "2", "4"}
			case f.Type.Kind() == reflect.Int: // a rank: none, one vec4 of metadata, two
				want = []string{"0", "1", "5"}
			default:
				t.Errorf("%s.%s (%s): teach variants and this test its values", ft.Name(), f.Name, f.Type)
				continue
			}
			for _, w := range want {
				if !got[w] {
					t.Errorf("no variant of %s has %s = %s", ft.Name(), f.Name, w)
				}
			}
		}
	}
}

func names[S ~string](vs []S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// packageConsts reads the package's source and returns, for each named
// type, the values of its constants in order of declaration.
func packageConsts(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok || len(vs.Values) != 1 {
					continue
				}
				if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					out[id.Name] = append(out[id.Name], strings.Trim(lit.Value, `"`))
				}
			}
		}
	}
	return out
}
