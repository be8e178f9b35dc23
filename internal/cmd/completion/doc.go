// Package completion is `kubectl reflect completion` (Setup: cobra's
// command, with help that names "kubectl reflect" and how completion
// reaches the plugin through kubectl) and the completion functions the
// verbs register: kinds from the cached discovery and names from one
// small LIST (KindArgs), --events (Events), built-in controller names
// (Builtins), and --namespace, --context, --cluster and --user.
package completion
