@echo off
rem Shell completion of `kubectl reflect` (kubectl 1.26+) on Windows: kubectl runs
rem kubectl_complete-reflect from PATH; cobra's __complete command answers.
kubectl-reflect.exe __complete %*
