package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode"
)

func writeJSON(path string, rep Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readReport(path string) (Report, error) {
	var rep Report
	b, err := os.ReadFile(path)
	if err != nil {
		return rep, err
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return rep, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

// columns returns the adapters and workloads of rep in first-seen order.
func columns(rep Report) (adapters, workloads []string, at map[[2]string]Result) {
	at = map[[2]string]Result{}
	seenA, seenW := map[string]bool{}, map[string]bool{}
	for _, r := range rep.Results {
		if !seenA[r.Adapter] {
			seenA[r.Adapter] = true
			adapters = append(adapters, r.Adapter)
		}
		if !seenW[r.Workload] {
			seenW[r.Workload] = true
			workloads = append(workloads, r.Workload)
		}
		at[[2]string{r.Workload, r.Adapter}] = r
	}
	return adapters, workloads, at
}

func formatValue(r Result) string {
	if r.Unit == "" {
		return "error"
	}
	s := fmt.Sprintf("%.3g %s", r.Value, r.Unit)
	if !r.Ok {
		s += " (WRONG)"
	}
	return s
}

// writeTable prints one row per workload and one column per adapter.
func writeTable(w io.Writer, rep Report) {
	adapters, workloads, at := columns(rep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "workload\t%s\n", strings.Join(adapters, "\t"))
	for _, wl := range workloads {
		row := []string{wl}
		for _, a := range adapters {
			r, ok := at[[2]string{wl, a}]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, formatValue(r))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	for _, r := range rep.Results {
		if len(r.Extra) > 0 {
			fmt.Fprintf(w, "%s on %s: %v\n", r.Workload, r.Adapter, r.Extra)
		}
	}
}

// writeBench prints Go benchmark lines that benchstat reads.
func writeBench(w io.Writer, rep Report) {
	fmt.Fprintf(w, "goos: %s\npkg: github.com/wgtensor/wgtensor/cmd/wgbench\n", strings.Split(rep.Machine, ", ")[1])
	if rep.CPU != "" {
		fmt.Fprintf(w, "cpu: %s\n", rep.CPU)
	}
	for _, r := range rep.Results {
		adapter := strings.Map(func(c rune) rune {
			if unicode.IsLetter(c) || unicode.IsDigit(c) || c == '-' || c == '.' {
				return c
			}
			return '-'
		}, r.Adapter)
		unit := strings.NewReplacer("µ", "u", " ", "").Replace(r.Unit)
		fmt.Fprintf(w, "Benchmark%s/adapter=%s 1 %.0f ns/op %g %s\n", r.Workload, adapter, r.NsPerOp, r.Value, unit)
	}
}

// compare prints NEW/OLD per workload and adapter, marking regressions
// beyond 10%.
func compare(oldPath, newPath string, w io.Writer) error {
	oldRep, err := readReport(oldPath)
	if err != nil {
		return err
	}
	newRep, err := readReport(newPath)
	if err != nil {
		return err
	}
	_, _, old := columns(oldRep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tadapter\told\tnew\tnew/old\t")
	regressions := 0
	for _, r := range newRep.Results {
		o, ok := old[[2]string{r.Workload, r.Adapter}]
		if !ok || o.Value == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t%s\t\t\n", r.Workload, r.Adapter, formatValue(r))
			continue
		}
		ratio := r.Value / o.Value
		mark := ""
		if (higherIsBetter(r.Unit) && ratio < 0.9) || (!higherIsBetter(r.Unit) && ratio > 1.1) || (o.Ok && !r.Ok) {
			mark = "REGRESSION"
			regressions++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f×\t%s\n", r.Workload, r.Adapter, formatValue(o), formatValue(r), ratio, mark)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d regressions\n", regressions)
	return nil
}
