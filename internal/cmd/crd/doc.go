// Package crd is `kubectl reflect crd print|install NAME`: a built-in
// controller's CRD printed, or applied server-side and awaited until
// established (pkg/builtin's ApplyCRD and WaitEstablished).
package crd
