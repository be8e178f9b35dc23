package output

import (
	"errors"
	"net/url"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// KubectlError words an error as kubectl get reports it
// (cmdutil.StandardErrorMessage, on the cause kubectlCause finds): a
// server's error as "Error from server (Reason): ...", Unauthorized and an
// unanswered connection in kubectl's words; another error as "error: ..."
// when alone, bare among others.
func KubectlError(err error, alone bool) string {
	if msg, ok := cmdutil.StandardErrorMessage(kubectlCause(err)); ok {
		return msg
	}
	if alone {
		return "error: " + err.Error()
	}
	return err.Error()
}

// kubectlCause is the error within err that kubectl has words for, which
// our wrapping ("listing configmaps: ...") would hide from its type
// switch: the server's Status, or the connection's *url.Error; else err.
func kubectlCause(err error) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if cause, ok := status.(error); ok {
			return cause
		}
	}
	var conn *url.Error
	if errors.As(err, &conn) {
		return conn
	}
	return err
}

// FileErrorLines words the errors of get -f as kubectl get prints them.
// Its resource builder returns the misplaced objects' errors one by one
// (a decorator outside its list of manifests), then what that list
// collected (NotFound and the like, in the manifests' order) as one
// nested aggregate; get adds a level for a table; kubectl's checkErr
// unwraps one aggregate of one, then prints an aggregate's errors a line
// each (a nested one as its Error(): one message bare, several in
// brackets) and a lone error with "error: ".
func FileErrorLines(misplaced, listed []error, table bool) []string {
	if len(misplaced) == 0 && len(listed) == 0 {
		return nil
	}
	errs := slices.Clip(misplaced)
	if len(listed) > 0 {
		errs = append(errs, utilerrors.NewAggregate(listed))
	}
	var err error = utilerrors.NewAggregate(errs)
	if len(errs) == 1 {
		err = errs[0]
	}
	if table {
		err = utilerrors.NewAggregate([]error{err})
	}
	if agg, ok := err.(utilerrors.Aggregate); ok && len(agg.Errors()) == 1 {
		err = agg.Errors()[0]
	}
	agg, ok := err.(utilerrors.Aggregate)
	if !ok {
		return []string{KubectlError(err, true)}
	}
	lines := make([]string, len(agg.Errors()))
	for i, e := range agg.Errors() {
		lines[i] = KubectlError(e, false)
	}
	return lines
}
