#!/usr/bin/env bash
# make demo: a local control plane, sample objects that keep changing, and
# `kubectl reflect watch` showing them live. Ctrl-C stops and cleans up.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
export KUBECONFIG="$work/kubeconfig"
pids=()
cleanup() {
  trap - INT TERM EXIT
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
  echo "demo: stopped and cleaned up" >&2
}
trap cleanup INT TERM EXIT

echo "demo: starting a local control plane (etcd, kube-apiserver, kube-controller-manager)..." >&2
go run ./test/controlplane/cmd/controlplane up --kubeconfig-out "$KUBECONFIG" >"$work/controlplane.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do
  [ -s "$KUBECONFIG" ] && kubectl --request-timeout=2s get --raw /readyz >/dev/null 2>&1 && break
  sleep 0.5
done
kubectl get --raw /readyz >/dev/null || { cat "$work/controlplane.log" >&2; exit 1; }

kubectl create namespace demo >/dev/null
for i in 1 2 3; do kubectl -n demo create configmap "settings-$i" --from-literal=round=0 >/dev/null; done
kubectl -n demo create secret generic token --from-literal=value=s3cr3t >/dev/null
kubectl -n demo create deployment web --image=nginx --replicas=2 >/dev/null

# Change things while the watch runs: updates, a deletion, a re-creation.
(
  round=0
  while sleep 2; do
    round=$((round + 1))
    kubectl -n demo create configmap "settings-1" --from-literal=round=$round --dry-run=client -o yaml | kubectl apply -f - >/dev/null 2>&1
    kubectl -n demo scale deployment web --replicas=$((round % 3 + 1)) >/dev/null 2>&1
    if ((round % 4 == 0)); then kubectl -n demo delete configmap settings-3 >/dev/null 2>&1; fi
    if ((round % 4 == 2)); then kubectl -n demo create configmap settings-3 --from-literal=round=$round >/dev/null 2>&1; fi
  done
) &
pids+=($!)

echo "demo: kubectl reflect watch configmaps,secrets,deployments.apps -n demo   (Ctrl-C to stop)" >&2
PATH="$PWD/bin:$PATH" kubectl reflect watch configmaps,secrets,deployments.apps -n demo || true
