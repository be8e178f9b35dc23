package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser is a headless chromium (Debian's, `make chromium`) with one
// tab, and what the tab did: every request it sent, and every console
// error, uncaught exception and error logged (a request the page's
// Content-Security-Policy refused is one).
type browser struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	requests []string
	errors   []string
}

// newBrowser starts chromium, quiet (no background requests of its own)
// and with an empty profile. Without chromium the test is skipped, or
// fails under CI=true: `make test` installs it.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no chromium: `make chromium` installs Debian's")
		}
		t.Skip("no chromium: `make chromium` installs Debian's")
	}
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900)}
	for _, f := range []string{"disable-quic", "disable-background-networking", "disable-component-update", "disable-sync"} {
		opts = append(opts, chromedp.Flag(f, true))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, b.event); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return b
}

// event keeps what the tab requested and the errors it reported.
func (b *browser) event(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, strings.TrimSpace(string(a.Value)+" "+a.Description))
			}
			b.errors = append(b.errors, "console."+string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		b.errors = append(b.errors, "exception: "+msg)
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			b.errors = append(b.errors, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	}
}

// seen is what the tab requested and the errors it reported so far.
func (b *browser) seen() (requests, errors []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...), append([]string(nil), b.errors...)
}

// open loads url and awaits cond (a JavaScript expression) being true.
func (b *browser) open(url, cond string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("opening %s: %v", url, err)
	}
	b.await(cond)
}

// await awaits a JavaScript condition in the page, checked at every
// frame it draws.
func (b *browser) await(cond string) {
	b.t.Helper()
	js := fmt.Sprintf(`new Promise((done) => { const f = () => ((%s) ? done(true) : requestAnimationFrame(f)); f(); })`, cond)
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
		_, errs := b.seen()
		b.t.Fatalf("awaiting %s: %v (page errors: %v)", cond, err, errs)
	}
}

// eval is a JavaScript expression's value in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// click scrolls the element selector names into view and clicks its
// centre with the mouse, as a person does.
func (b *browser) click(selector string) {
	b.t.Helper()
	xy := eval[[]float64](b, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return [];
		e.scrollIntoView({block: 'center', inline: 'center'}); const r = e.getBoundingClientRect();
		return [r.x + r.width / 2, r.y + r.height / 2]; })()`, selector))
	if len(xy) != 2 {
		b.t.Fatalf("no element %s to click", selector)
	}
	if err := chromedp.Do(b.ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		b.t.Fatalf("clicking %s: %v", selector, err)
	}
}

// wheel turns the mouse wheel n notches (up: negative dy) over the element
// selector names, at the horizontal position of the element at (a lane's
// mark, say).
func (b *browser) wheel(selector, at string, n int, dy float64) {
	b.t.Helper()
	xy := eval[[]float64](b, fmt.Sprintf(`(() => { const e = document.querySelector(%q), a = document.querySelector(%q);
		if (!e || !a) return []; const r = e.getBoundingClientRect(), ar = a.getBoundingClientRect();
		return [ar.x + ar.width / 2, r.y + r.height / 2]; })()`, selector, at))
	if len(xy) != 2 {
		b.t.Fatalf("no element %s or %s to turn the wheel over", selector, at)
	}
	for range n {
		if _, err := chromedp.Call(b.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			// deltaX must be sent, and a zero is left out of the JSON: a
			// thousandth of a pixel sideways.
			Type: input.DispatchMouseEventTypeMouseWheel, X: xy[0], Y: xy[1], DeltaX: 1e-3, DeltaY: dy}); err != nil {
			b.t.Fatalf("turning the wheel: %v", err)
		}
	}
}
