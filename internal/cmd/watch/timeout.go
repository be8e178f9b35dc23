package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// errWatchTimeout is the cause of the context that --timeout ends.
var errWatchTimeout = errors.New("--timeout reached")

// notListed is the error of a watch that --timeout ended before some kinds
// were ever listed (unlisted): its output does not show what exists, so it
// must not exit 0. It is nil when ctx did not end by --timeout or every
// kind listed.
func notListed(ctx context.Context, timeout time.Duration, unlisted []kube.Resource) error {
	if !errors.Is(context.Cause(ctx), errWatchTimeout) || len(unlisted) == 0 {
		return nil
	}
	kinds := make([]string, len(unlisted))
	for i, res := range unlisted {
		kinds[i] = res.String()
	}
	return fmt.Errorf("%s not listed within --timeout %s", strings.Join(kinds, ", "), timeout)
}
