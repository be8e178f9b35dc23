// Package untranslated keeps kubectl's libraries from loading kubectl's
// message translations when the process starts.
//
// k8s.io/kubectl/pkg/cmd/get (whose printers and print flags `get` and
// `watch` use) translates its own command's help text in package-level
// variables, and the first translation loads the translation files of the
// user's language: about 30 ms and 4 MB of allocations on every start of
// every command, for text kubectl-reflect never shows. Its own help is
// not translated.
//
// Importing this package (blank, from main) replaces the loader with one
// that loads nothing, through kubectl's documented hook
// (i18n.SetLoadTranslationsFunc): untranslated strings read as written.
// Go initializes it before kubectl's command packages: it depends only on
// k8s.io/kubectl/pkg/util/i18n, and, of the packages ready to initialize,
// the one first by import path goes first.
package untranslated
