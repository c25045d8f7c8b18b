// Command benchplot draws the figures of docs/benchmarks.md from the
// harness's JSON results (docs/benchmarks/*.json, written by `make bench`
// and `make bench-scale`) with gonum/plot, as SVG files:
//
//   - scale-ratio.svg: wall time / lower bound against N (no-op plan,
//     no-op sync, first sync; default concurrency), with the 1.3× and 1.5×
//     targets;
//   - scale-rss.svg: peak RSS against N, with the 400 MiB target;
//   - scale-cpu.svg: the CLI's CPU seconds per 1,000 secrets against N;
//   - sweep.svg: wall time and lower bound of the no-op sync against
//     --concurrency at the sweep's largest N;
//   - accounts.svg: wall time, lower bound and CPU seconds of the no-op
//     sync over many accounts against --parallel-scopes (make
//     bench-accounts).
//
// When several files hold the same run (kind, N, concurrency), the one of
// the latest run wins. Only the bench harness uses this program: gonum is
// kept out of the product packages (internal/archtest).
package main

import (
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
)

func main() {
	out := flag.String("out", "docs/benchmarks", "directory to write the SVG files into")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchplot [-out DIR] RESULTS.json...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var all []harness.Results
	for _, p := range flag.Args() {
		r, err := harness.ReadResults(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchplot:", err)
			os.Exit(1)
		}
		all = append(all, r)
	}
	written, err := draw(merge(all), *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
	for _, w := range written {
		fmt.Println("wrote", w)
	}
}

// key identifies one kind of run across result files.
type key struct {
	kind    harness.Kind
	label   string
	n, conc int
	// par and accounts tell the many-accounts rows apart.
	par, accounts, unreachable int
}

// merge returns the measured rows of every file, the latest run's row
// where several hold the same key; rows under reduced quotas are left out
// (their bound is another one).
func merge(all []harness.Results) []harness.ResultRow {
	slices.SortStableFunc(all, func(a, b harness.Results) int {
		switch {
		case a.Date < b.Date:
			return -1
		case a.Date > b.Date:
			return 1
		}
		return 0
	})
	byKey := map[key]harness.ResultRow{}
	for _, res := range all {
		for _, r := range res.Rows {
			if r.Reduced || r.Wall <= 0 {
				continue
			}
			byKey[key{r.Kind, r.Label, r.N, r.Concurrency, r.Parallel, r.Accounts, r.Unreachable}] = r
		}
	}
	rows := make([]harness.ResultRow, 0, len(byKey))
	for _, r := range byKey {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.N != b.N {
			return a.N < b.N
		}
		if a.Parallel != b.Parallel {
			return a.Parallel < b.Parallel
		}
		return a.Concurrency < b.Concurrency
	})
	return rows
}

// series is one line of a figure.
type series struct {
	name string
	pts  plotter.XYs
}

// byN returns, per kind, the (N, f(row)) points of the default-concurrency
// rows, ordered by N.
func byN(rows []harness.ResultRow, kinds []harness.Kind, f func(harness.ResultRow) float64) []series {
	var out []series
	for _, k := range kinds {
		s := series{name: string(k)}
		for _, r := range rows {
			if r.Kind == k && r.Default {
				s.pts = append(s.pts, plotter.XY{X: float64(r.N), Y: f(r)})
			}
		}
		if len(s.pts) > 0 {
			out = append(out, s)
		}
	}
	return out
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

// figure is one SVG file.
type figure struct {
	file, title, x, y string
	logX, logY        bool
	lines             []series
	// limits are horizontal target lines: name → y.
	limits map[string]float64
}

func draw(rows []harness.ResultRow, dir string) ([]string, error) {
	kinds := []harness.Kind{harness.NoopPlan, harness.NoopSync, harness.Create}
	figs := []figure{
		{file: "scale-ratio.svg", title: "Wall time / lower bound against N (default concurrency)", x: "desired secrets N", y: "wall / bound",
			logX: true, lines: byN(rows, kinds, func(r harness.ResultRow) float64 { return r.Ratio }),
			limits: map[string]float64{"target 1.3×": 1.3, "target 1.5×": 1.5}},
		{file: "scale-rss.svg", title: "Peak RSS of the CLI against N (default concurrency)", x: "desired secrets N", y: "peak RSS (MiB)",
			logX: true, lines: byN(rows, kinds, func(r harness.ResultRow) float64 { return r.PeakRSS }),
			limits: map[string]float64{"target 400 MiB at 50,000": 400}},
		{file: "scale-cpu.svg", title: "CLI CPU seconds per 1,000 secrets against N (default concurrency)", x: "desired secrets N", y: "CPU s per 1,000 secrets",
			logX: true, lines: byN(rows, kinds, func(r harness.ResultRow) float64 { return r.CPUPer1000 })},
	}
	if sw := sweep(rows); sw != nil {
		figs = append(figs, *sw)
	}
	if acc := accounts(rows); acc != nil {
		figs = append(figs, *acc)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, f := range figs {
		if len(f.lines) == 0 {
			continue
		}
		p, err := f.plot()
		if err != nil {
			return written, fmt.Errorf("%s: %w", f.file, err)
		}
		path := filepath.Join(dir, f.file)
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
			return written, fmt.Errorf("%s: %w", f.file, err)
		}
		written = append(written, path)
	}
	return written, nil
}

// sweep is the concurrency sweep of the no-op sync at the largest N that
// has one (at least three concurrencies): wall time and lower bound.
func sweep(rows []harness.ResultRow) *figure {
	count := map[int]int{}
	for _, r := range rows {
		if r.Kind == harness.NoopSync {
			count[r.N]++
		}
	}
	n := 0
	for k, c := range count {
		if c >= 3 && k > n {
			n = k
		}
	}
	if n == 0 {
		return nil
	}
	wall, bound := series{name: "measured wall time"}, series{name: "lower bound (latency and quotas)"}
	for _, r := range rows {
		if r.Kind == harness.NoopSync && r.N == n {
			wall.pts = append(wall.pts, plotter.XY{X: float64(r.Concurrency), Y: r.Wall})
			bound.pts = append(bound.pts, plotter.XY{X: float64(r.Concurrency), Y: r.Bound})
		}
	}
	return &figure{file: "sweep.svg", title: fmt.Sprintf("No-op sync of %d secrets against --concurrency", n), x: "--concurrency", y: "seconds",
		logX: true, logY: true, lines: []series{wall, bound}}
}

// accounts is the many-accounts no-op sync against --parallel-scopes (at
// least two values): wall time, lower bound and the CLI's CPU seconds.
func accounts(rows []harness.ResultRow) *figure {
	wall, bound, cpu := series{name: "measured wall time"}, series{name: "lower bound (latency, STS and --parallel-scopes)"}, series{name: "CPU seconds of the CLI (user + sys)"}
	accts, per := 0, 0
	for _, r := range rows {
		if r.Kind != harness.AccountsNoop || r.Parallel <= 0 {
			continue
		}
		wall.pts = append(wall.pts, plotter.XY{X: float64(r.Parallel), Y: r.Wall})
		bound.pts = append(bound.pts, plotter.XY{X: float64(r.Parallel), Y: r.Bound})
		cpu.pts = append(cpu.pts, plotter.XY{X: float64(r.Parallel), Y: r.CPU})
		accts, per = r.Accounts, r.N/max(1, r.Accounts)
	}
	if len(wall.pts) < 2 {
		return nil
	}
	return &figure{file: "accounts.svg", title: fmt.Sprintf("No-op sync of %d accounts × %d secrets against --parallel-scopes", accts, per),
		x: "--parallel-scopes", y: "seconds", logX: true, logY: true, lines: []series{wall, bound, cpu}}
}

func (f figure) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.title
	p.X.Label.Text = f.x
	p.Y.Label.Text = f.y
	// The legend sits top right, above the data: the y range is stretched
	// to leave it room.
	p.Legend.Top = true
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	minX, maxX, maxY, minY := 0.0, 0.0, 0.0, 0.0
	for i, s := range f.lines {
		l, pts, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return nil, err
		}
		c := palette[i%len(palette)]
		l.Color, pts.Color = c, c
		l.Width = vg.Points(1.5)
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
		for _, pt := range s.pts {
			if minX == 0 || pt.X < minX {
				minX = pt.X
			}
			if minY == 0 || pt.Y < minY {
				minY = pt.Y
			}
			maxX, maxY = max(maxX, pt.X), max(maxY, pt.Y)
		}
	}
	names := make([]string, 0, len(f.limits))
	for k := range f.limits {
		names = append(names, k)
	}
	slices.Sort(names)
	for i, name := range names {
		y := f.limits[name]
		maxY = max(maxY, y)
		l, err := plotter.NewLine(plotter.XYs{{X: minX, Y: y}, {X: maxX, Y: y}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: uint8(0x60 + 0x30*i)}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(name, l)
	}
	if f.logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max = minX/1.25, maxX*1.25
	}
	if f.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = minY/1.5, maxY*6
	} else {
		p.Y.Min, p.Y.Max = 0, maxY*1.45
	}
	return p, nil
}
