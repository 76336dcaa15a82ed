package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"
)

const compareUsage = "wgbench compare [-threshold PCT] [-alpha A] OLD.json NEW.json"

// errRegression is what compare returns when a workload got worse beyond
// the threshold: wgbench exits 1.
var errRegression = errors.New("regression")

// compareOptions say what compare counts as a regression.
type compareOptions struct {
	threshold float64 // percent worse beyond which a significant change fails: slowdown factor - 1, in percent
	alpha     float64 // the U test's significance level
}

func compareCmd(args []string, stdout io.Writer) error {
	fs := newFlagSet("compare", compareUsage)
	var o compareOptions
	fs.Float64Var(&o.threshold, "threshold", 50, "fail (exit 1) when a workload got significantly worse by more than this many percent: 50 lets a time grow by half, or a rate fall to 2/3")
	fs.Float64Var(&o.alpha, "alpha", benchmath.DefaultThresholds.CompareAlpha, "significance level of the Mann-Whitney U test, as benchstat's -alpha")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil || fs.helped {
		return err
	}
	if len(pos) != 2 {
		return usagef(fs.usage, "compare takes two result files, not %d arguments", len(pos))
	}
	if !(o.threshold >= 0) || !(o.alpha > 0 && o.alpha < 1) { // NaN fails both
		return usagef(fs.usage, "-threshold %g -alpha %g: want a threshold ≥ 0 and 0 < alpha < 1", o.threshold, o.alpha)
	}
	oldRep, err := readReport(pos[0])
	if err != nil {
		return err
	}
	newRep, err := readReport(pos[1])
	if err != nil {
		return err
	}
	if n := compare(oldRep, newRep, o, stdout); n > 0 {
		return fmt.Errorf("%w: results worse by more than %g%%, failed or wrong: %d", errRegression, o.threshold, n)
	}
	return nil
}

// change is how one result moved between two reports.
type change struct {
	old, new   benchmath.Summary
	cmp        benchmath.Comparison
	verdict    string  // "better", "worse" or "~" (no significant change)
	delta      float64 // new median / old median - 1, in percent
	worse      float64 // how much worse, in percent of the slowdown factor; 0 unless significantly worse
	regression bool    // worse beyond the threshold, or newly wrong
}

// compareResults tests whether o and n differ as benchstat does: the
// Mann-Whitney U test on their samples, at level alpha.
func compareResults(o, n Result, opts compareOptions) change {
	th := benchmath.DefaultThresholds
	th.CompareAlpha = opts.alpha
	so := benchmath.NewSample(slices.Clone(o.values()), &th)
	sn := benchmath.NewSample(slices.Clone(n.values()), &th)
	c := change{old: benchmath.AssumeNothing.Summary(so, 0.95), new: benchmath.AssumeNothing.Summary(sn, 0.95),
		cmp: benchmath.AssumeNothing.Compare(so, sn), verdict: "~"}
	if c.old.Center != 0 {
		c.delta = (c.new.Center/c.old.Center - 1) * 100
	}
	if c.cmp.P <= c.cmp.Alpha && c.new.Center != c.old.Center {
		up := c.new.Center > c.old.Center
		if up == (better(n.Unit) > 0) {
			c.verdict = "better"
		} else {
			c.verdict = "worse"
			c.worse = (slowdown(c.old.Center, c.new.Center, better(n.Unit)) - 1) * 100
		}
	}
	c.regression = c.worse > opts.threshold || (o.Ok && !n.Ok)
	return c
}

// slowdown returns by what factor a change from old to new is worse, for a
// unit whose better direction is dir: the time's ratio, or the inverse of
// the rate's.
func slowdown(old, new float64, dir int) float64 {
	if dir > 0 {
		old, new = new, old
	}
	if old <= 0 {
		return math.Inf(1)
	}
	return new / old
}

// compare prints, per workload and adapter, both medians with their
// confidence intervals, the change, whether it is significant and which
// way it goes, and then the results found on one side only. It returns
// how many regressions it marked.
func compare(oldRep, newRep Report, opts compareOptions, w io.Writer) int {
	_, _, old := columns(oldRep)
	_, _, cur := columns(newRep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tadapter\told\tnew\tdelta\tverdict\tU test\t")
	regressions := 0
	var onlyNew, unlike []string
	for _, n := range newRep.Results {
		o, ok := old[key{n.Workload, n.Adapter}]
		switch {
		case !ok:
			onlyNew = append(onlyNew, n.Workload+" on "+n.Adapter)
			continue
		case o.Unit != n.Unit && o.Unit != "" && n.Unit != "":
			unlike = append(unlike, fmt.Sprintf("%s on %s: %s then %s", n.Workload, n.Adapter, o.Unit, n.Unit))
			continue
		case o.Unit == "" || n.Unit == "": // a run failed: nothing to test
			mark := ""
			if o.Unit != "" {
				mark, regressions = "REGRESSION: failed", regressions+1
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t%s\n", n.Workload, n.Adapter, formatValue(o), formatValue(n), mark)
			continue
		}
		c := compareResults(o, n, opts)
		mark := ""
		if c.regression {
			regressions++
			mark = "REGRESSION"
			if o.Ok && !n.Ok {
				mark += ": wrong"
			}
		}
		test := c.cmp.String()
		for _, warn := range c.cmp.Warnings {
			test += " (" + warn.Error() + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%s\t%s\n", n.Workload, n.Adapter,
			formatSummary(c.old, n.Unit), formatSummary(c.new, n.Unit), c.delta, c.verdict, test, mark)
	}
	tw.Flush()
	var onlyOld []string
	for _, o := range oldRep.Results {
		if _, ok := cur[key{o.Workload, o.Adapter}]; !ok {
			onlyOld = append(onlyOld, o.Workload+" on "+o.Adapter)
		}
	}
	listOnly(w, "only in OLD", onlyOld)
	listOnly(w, "only in NEW", onlyNew)
	listOnly(w, "units differ, not compared", unlike)
	fmt.Fprintf(w, "regressions: %d (significant at alpha %g and worse by more than %g%%, or newly wrong)\n", regressions, opts.alpha, opts.threshold)
	return regressions
}

// formatSummary writes a median, its unit and its confidence interval.
func formatSummary(s benchmath.Summary, unit string) string {
	return fmt.Sprintf("%s %s ±%s", formatNumber(s.Center), unit, s.PctRangeString())
}

func listOnly(w io.Writer, what string, rows []string) {
	if len(rows) > 0 {
		fmt.Fprintf(w, "%s: %s\n", what, strings.Join(rows, ", "))
	}
}
