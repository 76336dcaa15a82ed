package kernels

// Variant and Variants give the golden test (package kernels_test, which
// opens the test device through internal/testgpu) the kernel variants.
type Variant = variant

// Variants lists every kernel variant (see variants).
func Variants() []Variant { return variants() }
