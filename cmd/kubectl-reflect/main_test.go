package main

import (
	"testing"

	"github.com/chai2010/gettext-go"
	"k8s.io/kubectl/pkg/util/i18n"
)

// TestNoTranslationsLoaded: the binary's packages, initialized as they are
// in the binary, did not load kubectl's translations (internal/untranslated
// went first), and a translation now still loads none.
func TestNoTranslationsLoaded(t *testing.T) {
	if got := i18n.T("Display one or many resources"); got != "Display one or many resources" {
		t.Errorf("i18n.T = %q, want the string as written", got)
	}
	if domain := gettext.SetDomain(""); domain == "k8s" {
		t.Errorf("kubectl's translations (domain %q) were loaded", domain)
	}
}
