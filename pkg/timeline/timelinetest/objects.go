package timelinetest

import (
	"fmt"
	"time"
)

// The JSON of the objects Write records: shaped and sized like the API
// server's (a kwok pod is about 3.5 KiB with its managedFields).

// podStep is where a pod is in its life.
type podStep int

const (
	podPending podStep = iota
	podScheduled
	podCreating
	podRunning
	podTerminating
)

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// podJSON is a pod of a Deployment's ReplicaSet at step, on node.
func podJSON(ns, name, node string, rv uint64, created, now time.Time, step podStep) []byte {
	nodeName, deletion := "", ""
	if step >= podScheduled {
		nodeName = fmt.Sprintf(`"nodeName":%q,`, node)
	}
	if step == podTerminating {
		deletion = fmt.Sprintf(`"deletionTimestamp":%q,"deletionGracePeriodSeconds":30,`, stamp(now))
	}
	status := `{"phase":"Pending","qosClass":"Burstable"}`
	switch {
	case step == podCreating:
		status = fmt.Sprintf(`{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":%q}],"hostIP":"10.0.0.1","startTime":%q,"containerStatuses":[{"name":"app","state":{"waiting":{"reason":"ContainerCreating"}},"lastState":{},"ready":false,"restartCount":0,"image":"registry.example/app:1.4.2","imageID":"","started":false}],"qosClass":"Burstable"}`, stamp(created), stamp(now))
	case step >= podRunning:
		status = fmt.Sprintf(`{"phase":"Running","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":%[1]q},{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":%[2]q},{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":%[2]q},{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":%[1]q}],"hostIP":"10.0.0.1","podIP":"10.244.3.17","podIPs":[{"ip":"10.244.3.17"}],"startTime":%[1]q,"containerStatuses":[{"name":"app","state":{"running":{"startedAt":%[2]q}},"lastState":{},"ready":true,"restartCount":0,"image":"registry.example/app:1.4.2","imageID":"registry.example/app@sha256:9f2c0b7e4d1a5b3c8e6f7a9d0c1b2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d","containerID":"containerd://5b2e1f0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a","started":true}],"qosClass":"Burstable"}`, stamp(created), stamp(now))
	}
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"generateName":"app-7d9f8c6b5-","namespace":%q,"uid":"%s","resourceVersion":"%d","creationTimestamp":%q,%s"labels":{"app":"app","pod-template-hash":"7d9f8c6b5","tier":"backend"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-12-01T09:00:00Z"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"app-7d9f8c6b5","uid":"6c1f3e2a-8b7d-4c5e-9f0a-1b2c3d4e5f60","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"6c1f3e2a-8b7d-4c5e-9f0a-1b2c3d4e5f60\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:resources":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:terminationGracePeriodSeconds":{}}}},{"manager":"kwok","operation":"Update","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:startTime":{}}},"subresource":"status"}]},"spec":{%s"containers":[{"name":"app","image":"registry.example/app:1.4.2","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],"env":[{"name":"LOG_LEVEL","value":"info"},{"name":"REGION","value":"eu-west-1"}],"resources":{"limits":{"memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default","securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":%s}`,
		name, ns, uid(name), rv, stamp(created), deletion, stamp(created), stamp(now), nodeName, status)
}

// leaseJSON is a node's Lease renewed at now.
func leaseJSON(node string, rv uint64, created, now time.Time) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":%q,"namespace":"kube-node-lease","uid":"%s","resourceVersion":"%d","creationTimestamp":%q,"ownerReferences":[{"apiVersion":"v1","kind":"Node","name":%q,"uid":"%s"}],"managedFields":[{"manager":"kwok","operation":"Update","apiVersion":"coordination.k8s.io/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:holderIdentity":{},"f:leaseDurationSeconds":{},"f:renewTime":{}}}}]},"spec":{"holderIdentity":%q,"leaseDurationSeconds":40,"renewTime":"%s.000000Z"}}`,
		node, uid("lease-"+node), rv, stamp(created), node, uid(node), stamp(now), node, now.UTC().Format("2006-01-02T15:04:05"))
}

// eventJSON is a core/v1 Event about a pod.
func eventJSON(ns, name, pod, typ, reason, message string, rv uint64, first, last time.Time, count int) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Event","metadata":{"name":%q,"namespace":%q,"uid":"%s","resourceVersion":"%d","creationTimestamp":%q,"managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:count":{},"f:firstTimestamp":{},"f:involvedObject":{},"f:lastTimestamp":{},"f:message":{},"f:reason":{},"f:source":{"f:component":{},"f:host":{}},"f:type":{}}}]},"involvedObject":{"kind":"Pod","namespace":%q,"name":%q,"uid":"%s","apiVersion":"v1","resourceVersion":"1","fieldPath":"spec.containers{app}"},"reason":%q,"message":%q,"source":{"component":"kubelet","host":"node-1"},"firstTimestamp":%q,"lastTimestamp":%q,"count":%d,"type":%q,"eventTime":null,"reportingComponent":"kubelet","reportingInstance":"node-1"}`,
		name, ns, uid(name), rv, stamp(first), stamp(last), ns, pod, uid(pod), reason, message, stamp(first), stamp(last), count, typ)
}

// uid is a stable UID for a name.
func uid(name string) string {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(h>>32), uint16(h>>16), uint16(h)&0xfff, uint16(h>>4)&0xfff, h&0xffffffffffff)
}
