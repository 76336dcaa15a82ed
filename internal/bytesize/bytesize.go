// Package bytesize formats byte counts for the module's reports and
// messages: memory summaries, leak reports, out-of-memory errors,
// benchmark tables. It is safe for concurrent use.
package bytesize

import "fmt"

// Format formats n in B, KiB, MiB or GiB, with two decimals above bytes:
// "512 B", "1.50 KiB", "64.00 MiB".
func Format(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
