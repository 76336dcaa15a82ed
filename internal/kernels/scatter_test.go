package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestScatterAddSpec(t *testing.T) {
	keys := map[string]bool{Gather{}.Key(): true}
	for _, k := range []ScatterAdd{{T: F32}, {T: I32}, {T: U32}, {T: F32, ByIndex: true}, {T: U32, ByIndex: true}} {
		T := k.T
		spec := k.Spec()
		assert.False(t, keys[k.Key()], "key %q names two kernels", k.Key())
		keys[k.Key()] = true
		assert.Equal(t, k.Key(), spec.Key)
		assert.EqualValues(t, len((&ScatterAddParams{}).Bytes()), spec.ParamsSize)
		assert.Contains(t, spec.Source, "array<"+string(T)+">")
	}
	assert.Less(t, ScatterChunk, MaxLoopTrips, "a dispatch's loop stays within Mesa's trips")
}
