#!/usr/bin/env bash
# make demo: a local control plane, sample objects that keep changing, and
# `kubectl reflect watch` showing them live; then `kubectl reflect
# run-controller configmap-generator` creating a ConfigMap from a
# ConfigMapGenerator and repairing it when it is edited or deleted, which the
# watch shows too. Ctrl-C (or SIGTERM) stops everything the demo started and
# removes its temporary files.
#
# kubectl comes from PATH (the one built with the control plane if there is
# none); kubectl-reflect from DEMO_BIN_DIR (default: bin, what `make build`
# writes).
set -uo pipefail
cd "$(dirname "$0")/.."
bin_dir=${DEMO_BIN_DIR:-$PWD/bin}

work=$(mktemp -d "${TMPDIR:-/tmp}/kubectl-reflect-demo-XXXXXX") || exit 1
export KUBECONFIG="$work/kubeconfig"
controlplane_pid='' loop_pid='' watch_pid='' controller_pid=''

# stop ends the watch, the change loop and the control plane, waiting for
# each: the control plane last, as it stops etcd, kube-apiserver and
# kube-controller-manager and removes its own temporary directory.
stop() {
  trap '' INT TERM # a second Ctrl-C must not cut the cleanup short
  [ -z "$watch_pid" ] || end "$watch_pid" 'kubectl reflect watch' 5
  [ -z "$loop_pid" ] || end "$loop_pid" 'the change loop' 15 # a kubectl call may take 10s
  [ -z "$controller_pid" ] || end "$controller_pid" 'kubectl reflect run-controller' 10
  [ -z "$controlplane_pid" ] || end "$controlplane_pid" 'the control plane' 30
  rm -rf "$work"
}

# end PID NAME SECONDS sends SIGTERM, and SIGKILL if the process is still
# there SECONDS later (saying so: that is a bug), and returns once it is
# gone. It does not `wait` for it: bash reaps its children itself, and
# bash 5.2's `wait PID` for a child it had reaped while signals came in
# blocked until every other child ended (seen under load: with the change
# loop still running, the demo never stopped).
end() {
  local tenths=$(($3 * 10))
  kill -TERM "$1" 2>/dev/null
  while kill -0 "$1" 2>/dev/null && ((tenths-- > 0)); do sleep 0.1; done
  if kill -KILL "$1" 2>/dev/null; then
    echo "demo: $2 did not stop on SIGTERM within $3s: killed" >&2
    while kill -0 "$1" 2>/dev/null; do sleep 0.1; done
  fi
}
finish() {
  trap - EXIT
  stop
  echo "demo: stopped and cleaned up" >&2
  exit 0
}
trap finish INT TERM
trap stop EXIT

fail() {
  echo "error: demo: $*" >&2
  exit 1
}

[ -x "$bin_dir/kubectl-reflect" ] || fail "$bin_dir/kubectl-reflect is missing: run \`make demo\` (or \`make build\` first)"

# A binary, not `go run`, so that the signals of stop reach the control plane
# itself rather than the go command wrapping it.
echo "demo: building the control plane (etcd, kube-apiserver, kube-controller-manager; the first build takes minutes)..." >&2
go build -o "$work/controlplane" ./test/controlplane/cmd/controlplane || fail "could not build test/controlplane/cmd/controlplane"
binaries=$("$work/controlplane" build) || fail "could not build the control-plane binaries"
command -v kubectl >/dev/null || PATH="$PATH:$binaries"

echo "demo: starting the control plane..." >&2
"$work/controlplane" up --kubeconfig-out "$KUBECONFIG" >/dev/null &
controlplane_pid=$!
# up writes the kubeconfig (whole, by a rename) once kube-apiserver is ready.
until [ -e "$KUBECONFIG" ]; do
  kill -0 "$controlplane_pid" 2>/dev/null || { wait "$controlplane_pid"; controlplane_pid=''; fail "the control plane did not start (its error is above)"; }
  sleep 0.2
done

kc() { kubectl --request-timeout=10s -n demo "$@" >/dev/null; }
kubectl --request-timeout=10s create namespace demo >/dev/null &&
  kc create configmap settings-1 --from-literal=round=0 &&
  kc create configmap settings-2 --from-literal=color=blue &&
  kc create configmap settings-3 --from-literal=round=0 &&
  kc create secret generic token --from-literal=value=s3cr3t &&
  kc create deployment web --image=nginx --replicas=2 ||
  fail "could not create the sample objects with $(command -v kubectl)"

# The CRD of the configmap-generator controller, so that the watch can show
# its generators from the start.
PATH="$bin_dir:$PATH" kubectl reflect crd install configmap-generator >/dev/null ||
  fail "could not install the ConfigMapGenerator CRD"

# change_loop changes something every 2 seconds until it gets SIGTERM:
# updates, scaling (the deployment and replicaset controllers act on it),
# a deletion and a re-creation; from round 2 a ConfigMapGenerator, whose
# ConfigMap is edited by hand (round 3, 7, ...: the controller restores it),
# deleted (round 4, 8, ...: the controller creates it again) and whose spec
# changes (round 5, 9, ...: the ConfigMap follows). A failing kubectl is
# reported and the loop goes on.
change_loop() {
  local sleeper=''
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  try() { kc "$@" 2>/dev/null || echo "demo: kubectl $* failed" >&2; }
  for ((round = 1; ; round++)); do
    sleep 2 & sleeper=$!
    wait "$sleeper"
    local replicas=$((round % 3 + 1)) more=''
    case $((round % 4)) in
      1) more='delete configmap settings-3' ;;
      2) more='patch secret token' ;;
      3) more='re-create configmap settings-3' ;;
    esac
    local generator=''
    if ((round == 2)); then
      generator='create configmapgenerator greeting'
    elif ((round > 2)); then
      case $((round % 4)) in
        3) generator='edit configmap greeting by hand' ;;
        0) generator='delete configmap greeting' ;;
        1) generator='change the spec of configmapgenerator greeting' ;;
      esac
    fi
    echo "demo: round $round: patch configmap settings-1, scale deployment web to $replicas${more:+, $more}${generator:+, $generator}" >&2
    try patch configmap settings-1 --type=merge -p "{\"data\":{\"round\":\"$round\"}}"
    try scale deployment web --replicas=$replicas
    case $((round % 4)) in
      1) try delete configmap settings-3 ;;
      2) try patch secret token --type=merge -p "{\"stringData\":{\"round\":\"$round\"}}" ;;
      3) try create configmap settings-3 --from-literal=round=$round ;;
    esac
    case $generator in
      create*) echo "$greeting" | try apply -f - ;;
      edit*) try patch configmap greeting --type=merge -p '{"data":{"greeting":"edited by hand"}}' ;;
      delete*) try delete configmap greeting ;;
      change*) try patch configmapgenerator greeting --type=merge -p "{\"spec\":{\"data\":{\"round\":\"$round\"}}}" ;;
    esac
  done
}

greeting='apiVersion: kubectl-reflect.io/v1alpha1
kind: ConfigMapGenerator
metadata:
  name: greeting
spec:
  data:
    greeting: hello
  labels:
    app: demo'

kinds=configmaps,secrets,deployments.apps,replicasets.apps,configmapgenerators.kubectl-reflect.io
echo "demo: kubectl reflect watch $kinds -n demo   (Ctrl-C to stop)" >&2
# In the background so that a signal runs the trap at once: bash runs a trap
# only after its foreground command ends.
PATH="$bin_dir:$PATH" kubectl reflect watch "$kinds" -n demo &
watch_pid=$!
echo "demo: kubectl reflect run-controller configmap-generator -n demo   (one line per reconcile on stderr)" >&2
PATH="$bin_dir:$PATH" kubectl reflect run-controller configmap-generator -n demo &
controller_pid=$!
change_loop & # its first change comes 2 seconds later: the watch has listed by then
loop_pid=$!
# Wait for the watch to end or for Ctrl-C or SIGTERM. From here the trap
# only takes note and the cleanup runs below, not inside a trap that
# interrupted `wait`; the wait wakes every second, so that a signal that
# came just as bash began to wait (bash runs its trap at the next wake-up)
# is acted on within a second.
stopping='' sleeper=''
trap 'stopping=1' INT TERM
while [ -z "$stopping" ] && kill -0 "$watch_pid" 2>/dev/null; do
  sleep 1 & sleeper=$!
  wait "$sleeper"
done
kill "$sleeper" 2>/dev/null
: # a command boundary, where bash runs the trap of a Ctrl-C that also stopped the watch
if [ -z "$stopping" ]; then # the watch ended by itself, no signal in flight
  wait "$watch_pid"
  status=$?
  watch_pid=''
  [ "$status" = 0 ] || fail "kubectl reflect watch exited with status $status"
fi
finish
