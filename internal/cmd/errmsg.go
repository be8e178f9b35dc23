package cmd

import (
	"errors"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// missingMessage words an error get reports as kubectl does
// (cmdutil.StandardErrorMessage, on the cause kubectlCause finds): a
// server's error as "Error from server (Reason): ...", Unauthorized and an
// unanswered connection in kubectl's words; another error as "error: ..."
// when alone, bare among others.
func missingMessage(err error, alone bool) string {
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
