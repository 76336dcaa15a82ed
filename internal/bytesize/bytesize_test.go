package bytesize_test

import (
	"testing"

	"github.com/wgtensor/wgtensor/internal/bytesize"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.00 KiB"},
		{1536, "1.50 KiB"},
		{64 << 20, "64.00 MiB"},
		{3 << 30, "3.00 GiB"},
		{1<<64 - 1, "17179869184.00 GiB"},
	} {
		if got := bytesize.Format(c.n); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
