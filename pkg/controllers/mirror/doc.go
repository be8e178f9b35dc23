// Package mirror is the mirror built-in controller: it copies Secrets and
// ConfigMaps across namespaces, driven by the annotations of emberstack's
// kubernetes-reflector (https://github.com/emberstack/kubernetes-reflector),
// so that its users switch without editing anything.
//
// TODO: compatibility table.
package mirror
