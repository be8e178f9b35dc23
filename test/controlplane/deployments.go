package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Deployments makes and changes Deployments in one namespace as a real
// cluster's users do, for tests that need a cluster's shape and its churn:
// Create (or CreateMany) them, then Rollout a new pod template, Scale, Delete;
// AwaitComplete and AwaitGone wait, by watching, until the cluster has caught
// up. With Options.Scheduler and Options.Kwok, the pods are scheduled and run
// on kwok's nodes; without them they stay Pending and rollouts never
// complete.
//
// Each Deployment NAME selects the pods labelled app=NAME; its one
// container, "app", runs the image "app:vN" (never pulled: nothing runs),
// N counting its rollouts from 1, and requests 100m CPU and 64Mi.
type Deployments struct {
	cs        kubernetes.Interface
	namespace string
}

// NewDeployments returns Deployments in namespace, which it creates unless
// it exists. Its client is cfg's without client-side rate limiting, unless
// cfg sets one.
func NewDeployments(ctx context.Context, cfg *rest.Config, namespace string) (*Deployments, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS, cfg.Burst = 1000, 1000
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create namespace %s: %w", namespace, err)
	}
	return &Deployments{cs: cs, namespace: namespace}, nil
}

// Create creates the Deployment name with replicas pods.
func (d *Deployments) Create(ctx context.Context, name string, replicas int32) (*appsv1.Deployment, error) {
	dep, err := d.cs.AppsV1().Deployments(d.namespace).Create(ctx, deployment(name, replicas), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create deployment %s: %w", name, err)
	}
	return dep, nil
}

// CreateMany creates count Deployments named prefix-0, prefix-1, ... of
// replicas pods each, and returns their names.
func (d *Deployments) CreateMany(ctx context.Context, prefix string, count int, replicas int32) ([]string, error) {
	names := make([]string, 0, count)
	for i := range count {
		name := fmt.Sprintf("%s-%d", prefix, i)
		if _, err := d.Create(ctx, name, replicas); err != nil {
			return names, err
		}
		names = append(names, name)
	}
	return names, nil
}

// deployment is the Deployment Create makes.
func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  "app",
						Image: "app:v1",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("100m"),
							corev1.ResourceMemory: resource.MustParse("64Mi"),
						}},
					}},
				},
			},
		},
	}
}

// Rollout changes the pod template of the Deployment name (its image goes
// from app:vN to app:vN+1), which starts a rollout: a new ReplicaSet scaled
// up as the old one is scaled down. It returns the new image.
func (d *Deployments) Rollout(ctx context.Context, name string) (string, error) {
	dep, err := d.cs.AppsV1().Deployments(d.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("rollout %s: %w", name, err)
	}
	containers := dep.Spec.Template.Spec.Containers
	if len(containers) == 0 {
		return "", fmt.Errorf("rollout %s: no container", name)
	}
	image, err := nextImage(containers[0].Image)
	if err != nil {
		return "", fmt.Errorf("rollout %s: %w", name, err)
	}
	// A patch that tests the current image: two rollouts at once do not
	// silently become one.
	patch, err := json.Marshal([]map[string]string{
		{"op": "test", "path": "/spec/template/spec/containers/0/image", "value": containers[0].Image},
		{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": image},
	})
	if err != nil {
		return "", err
	}
	if _, err := d.cs.AppsV1().Deployments(d.namespace).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return "", fmt.Errorf("rollout %s: %w", name, err)
	}
	return image, nil
}

// nextImage is image with its tag vN made vN+1.
func nextImage(image string) (string, error) {
	repo, tag, ok := strings.Cut(image, ":")
	n, err := strconv.Atoi(strings.TrimPrefix(tag, "v"))
	if !ok || !strings.HasPrefix(tag, "v") || err != nil {
		return "", fmt.Errorf("image %q is not NAME:vN", image)
	}
	return fmt.Sprintf("%s:v%d", repo, n+1), nil
}

// Scale sets the replicas of the Deployment name, through its scale
// subresource as kubectl scale does.
func (d *Deployments) Scale(ctx context.Context, name string, replicas int32) error {
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	_, err := d.cs.AppsV1().Deployments(d.namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "scale")
	if err != nil {
		return fmt.Errorf("scale %s to %d: %w", name, replicas, err)
	}
	return nil
}

// Delete deletes the Deployment name; the garbage collector then deletes its
// ReplicaSets and their pods (see AwaitGone).
func (d *Deployments) Delete(ctx context.Context, name string) error {
	if err := d.cs.AppsV1().Deployments(d.namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete deployment %s: %w", name, err)
	}
	return nil
}

// AwaitComplete waits until the rollout of each named Deployment is
// complete, as kubectl rollout status decides: the controller has seen the
// latest spec, and all replicas are updated and available, with no old
// ones left.
func (d *Deployments) AwaitComplete(ctx context.Context, names ...string) error {
	lw := cache.NewListWatchFromClient(d.cs.AppsV1().RESTClient(), "deployments", d.namespace, fields.Everything())
	var incomplete []string
	err := awaitState(ctx, lw, &appsv1.Deployment{}, func(deps []*appsv1.Deployment) (bool, error) {
		done := map[string]bool{}
		for _, dep := range deps {
			done[dep.Name] = rolledOut(dep)
		}
		incomplete = incomplete[:0]
		for _, n := range names {
			if !done[n] {
				incomplete = append(incomplete, n)
			}
		}
		return allOf(names, done), nil
	})
	if err != nil {
		return fmt.Errorf("await rollouts in %s (%d of %d incomplete: %v): %w", d.namespace, len(incomplete), len(names), incomplete, err)
	}
	return nil
}

// rolledOut reports whether dep's rollout is complete (kubectl's
// DeploymentStatusViewer, without the progress deadline).
func rolledOut(dep *appsv1.Deployment) bool {
	if dep.Status.ObservedGeneration < dep.Generation {
		return false
	}
	want := int32(1)
	if dep.Spec.Replicas != nil {
		want = *dep.Spec.Replicas
	}
	s := dep.Status
	return s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want
}

// AwaitGone waits until each named Deployment is gone, with every pod it
// selected (app=NAME).
func (d *Deployments) AwaitGone(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	want := setOf(names)
	deps := cache.NewListWatchFromClient(d.cs.AppsV1().RESTClient(), "deployments", d.namespace, fields.Everything())
	err := awaitState(ctx, deps, &appsv1.Deployment{}, func(deps []*appsv1.Deployment) (bool, error) {
		for _, dep := range deps {
			if want[dep.Name] {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("await deployments %v gone: %w", names, err)
	}
	apps, err := labels.NewRequirement("app", selection.In, names)
	if err != nil {
		return err
	}
	pods := cache.NewFilteredListWatchFromClient(d.cs.CoreV1().RESTClient(), "pods", d.namespace, func(o *metav1.ListOptions) {
		o.LabelSelector = labels.NewSelector().Add(*apps).String()
	})
	err = awaitState(ctx, pods, &corev1.Pod{}, func(pods []*corev1.Pod) (bool, error) {
		return len(pods) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("await the pods of %v gone: %w", names, err)
	}
	return nil
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Shape is what MakeShape makes: Deployments Deployments of Replicas pods
// each in Namespace, named Prefix-0, Prefix-1, ... (Prefix "app" if empty).
// The nodes are kwok's (KwokOptions.Nodes, AddNodes).
type Shape struct {
	Namespace   string
	Prefix      string
	Deployments int
	Replicas    int32
}

// MakeShape gives the cluster shape's Deployments and waits, until ctx ends,
// for every rollout to complete: all the pods scheduled and Running. It
// returns the Deployments, to roll out, scale and delete, and their names.
// It needs Options.Scheduler and Options.Kwok, without which no pod runs.
func (c *ControlPlane) MakeShape(ctx context.Context, s Shape) (*Deployments, []string, error) {
	if !c.opts.Scheduler || c.opts.Kwok == nil {
		return nil, nil, errors.New("MakeShape needs Options.Scheduler and Options.Kwok: without them no pod runs")
	}
	if s.Prefix == "" {
		s.Prefix = "app"
	}
	apps, err := NewDeployments(ctx, c.AdminConfig(), s.Namespace)
	if err != nil {
		return nil, nil, err
	}
	names, err := apps.CreateMany(ctx, s.Prefix, s.Deployments, s.Replicas)
	if err != nil {
		return nil, nil, err
	}
	if err := apps.AwaitComplete(ctx, names...); err != nil {
		return nil, nil, err
	}
	return apps, names, nil
}
