package frame

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestIntervalNeverWraps: a rate so low that its interval passes the
// longest Duration waits that long; converting the float overflowed
// (to a negative Duration on amd64, which turned pacing off).
func TestIntervalNeverWraps(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want time.Duration
	}{
		{0, 0},
		{1, time.Second},
		{1000, time.Millisecond},
		{math.Inf(1), 0},
		{math.MaxFloat64, 0},
		{1e-9, 1e18},
		{1e-10, math.MaxInt64},
		{1e-300, math.MaxInt64},
		{math.SmallestNonzeroFloat64, math.MaxInt64},
	} {
		assert.Equal(t, c.want, Options{Rate: c.rate}.interval(), "rate %v", c.rate)
	}
}
