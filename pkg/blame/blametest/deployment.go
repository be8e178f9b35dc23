package blametest

import (
	"fmt"
	"time"
)

// deployment is Deployment i's JSON at step: replicas, image and status
// each changed every third step.
func deployment(i int, rv uint64, step int, t time.Time) []byte {
	scaled, edited, status := (step+2)/3, (step+1)/3, step/3
	return fmt.Appendf(nil, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":"default","uid":"uid-%d","resourceVersion":"%d","generation":%d,"labels":{"app":%q,"tier":"web"},"managedFields":[`+
		`{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"apps/v1","time":"2026-12-06T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:selector":{},"f:template":{}}}},`+
		`{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"},`+
		`{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:replicas":{},"f:conditions":{}}},"subresource":"status"}]},`+
		`"spec":{"replicas":%d,"selector":{"matchLabels":{"app":%q}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%%","maxUnavailable":"25%%"}},`+
		`"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"name":"web","image":"registry.example.com/web:%d","ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler"}}},`+
		`"status":{"observedGeneration":%d,"replicas":%d,"updatedReplicas":%d,"readyReplicas":%d,"conditions":[{"type":"Available","status":"True","lastUpdateTime":%q,"reason":"MinimumReplicasAvailable","message":"step %d"}]}}`,
		Name(i), i, rv, 1+edited+scaled, Name(i),
		t.Add(time.Duration(scaled)*time.Second).Format(time.RFC3339), t.Format(time.RFC3339),
		1+scaled%5, Name(i), Name(i), edited, 1+edited+scaled, 1+scaled%5, 1+scaled%5, 1+scaled%5, t.Format(time.RFC3339), status)
}
