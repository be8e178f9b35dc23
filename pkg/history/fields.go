package history

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// parseRV is a resourceVersion as a number, 0 when it is not one.
func parseRV(rv string) uint64 {
	n, _ := store.ParseRV(rv)
	return n
}

// splitKey undoes Key.
func splitKey(key string) (namespace, name string) {
	ns, name, _ := strings.Cut(key, "/")
	return ns, name
}

// IsSecrets says whether res is the core group's Secrets.
func IsSecrets(res kube.Resource) bool {
	return res.GVR.Group == "" && res.GVR.Resource == "secrets"
}

// HashSecretData replaces each value of a Secret's data and stringData by
// "sha256:" and the hex SHA-256 of the value it stands for (data's
// decoded), so that the record tells which keys changed, never what they
// hold. A document it cannot edit is kept without data.
func HashSecretData(doc []byte) []byte {
	for _, field := range []string{"data", "stringData"} {
		m := gjson.GetBytes(doc, field)
		if !m.IsObject() {
			continue
		}
		hashed := map[string]string{}
		m.ForEach(func(k, v gjson.Result) bool {
			value := []byte(v.Str)
			if field == "data" {
				if raw, err := base64.StdEncoding.DecodeString(v.Str); err == nil {
					value = raw
				}
			}
			sum := sha256.Sum256(value)
			hashed[k.Str] = "sha256:" + hex.EncodeToString(sum[:])
			return true
		})
		out, err := sjson.SetBytes(doc, field, hashed)
		if err != nil {
			out, _ = sjson.DeleteBytes(doc, field)
		}
		doc = out
	}
	return doc
}

// Manager returns who made an object's change from prev (nil: unknown)
// to doc: the manager of the managedFields entry of doc that the change
// wrote; without prev, or when no entry changed, the manager of the entry
// with the latest time. "" when it has none.
//
// An entry the change wrote is new (no entry of its manager, operation
// and subresource in prev) or has a new time. An entry that changed under
// its old time only lost fields to the writer (kubectl scale takes
// spec.replicas from the creator's entry); it is the change's only when
// no entry was written. Among several, the latest time wins (a second's
// precision: two writers in one second tie); an entry without a time, as
// the API server writes /scale's, is the latest: when no entry changed at
// all, the change was most likely its writer's again (a second scale
// changes no entry; any other writer's re-stamps its own).
func Manager(doc, prev []byte) string {
	// An entry of doc is in prev when its text is in prev's list: an
	// entry's text starts with "{" and ends where its braces balance, so it
	// can be found in the list only as a whole entry (a string's braces and
	// quotes are escaped). One scan of prev, no set of its entries.
	before := gjson.Get(unsafeString(prev), "metadata.managedFields")
	var (
		manager, latest string
		best            = -1
	)
	gjson.Get(unsafeString(doc), "metadata.managedFields").ForEach(func(_, e gjson.Result) bool {
		rank, t := entryRank(before, e, prev != nil)
		if rank > best || rank == best && t >= latest { // RFC 3339 in UTC sorts as text
			manager, latest, best = e.Get("manager").Str, t, rank
		}
		return true
	})
	return strings.Clone(manager) // not a part of doc, which its caller may reuse
}

// unsafeString is b as a string, for gjson to read without a copy
// (GetBytes copies what it finds: both managedFields lists were 352 B and
// 0.3 us of BenchmarkManager's 1.6): b must not change while the string
// or a part of it is in use.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// The ranks of Manager's entries, and the time of an entry written
// without one.
const (
	unchanged = iota
	lostFields
	written

	untimedWrite = "9999-12-31T23:59:59Z"
)

// entryRank ranks entry e of an object's managedFields against before,
// the list before the change (compared: there was one), and gives the
// time it is ranked by.
func entryRank(before, e gjson.Result, compared bool) (rank int, t string) {
	t = e.Get("time").Str
	if !compared {
		return unchanged, t
	}
	if strings.Contains(before.Raw, e.Raw) {
		if t == "" { // a subresource's entry: its writer may have written again (a second kubectl scale)
			t = untimedWrite
		}
		return unchanged, t
	}
	if t == "" || strings.Contains(before.Raw, t) { // else no entry had its time: it was written
		if old, ok := sameEntry(before, e); ok && old == t {
			return lostFields, t
		}
	}
	if t == "" {
		t = untimedWrite
	}
	return written, t
}

// sameEntry finds in list the entry of e's manager, operation and
// subresource, and returns its time.
func sameEntry(list, e gjson.Result) (time string, ok bool) {
	key := [3]string{e.Get("manager").Str, e.Get("operation").Str, e.Get("subresource").Str}
	list.ForEach(func(_, o gjson.Result) bool {
		if [3]string{o.Get("manager").Str, o.Get("operation").Str, o.Get("subresource").Str} == key {
			time, ok = o.Get("time").Str, true
			return false
		}
		return true
	})
	return time, ok
}
