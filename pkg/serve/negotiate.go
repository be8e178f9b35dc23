package serve

import (
	"net/http"
	"strings"
)

// mediaType is one media type of an Accept header, with the parameters the
// API server negotiates on: the group, version and kind to answer as.
type mediaType struct {
	typ      string
	g, v, as string
}

func parseAccept(accept string) []mediaType {
	var out []mediaType
	for part := range strings.SplitSeq(accept, ",") {
		params := strings.Split(part, ";")
		mt := mediaType{typ: strings.TrimSpace(params[0])}
		for _, p := range params[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			switch strings.TrimSpace(k) {
			case "g":
				mt.g = v
			case "v":
				mt.v = v
			case "as":
				mt.as = v
			}
		}
		out = append(out, mt)
	}
	return out
}

// form is what objects are answered as.
type form uint8

const (
	// formObject: the objects as the server sent them (a list of them,
	// events carrying them).
	formObject form = iota
	// formTable: a meta.k8s.io/v1 Table of printer cells (kubectl get).
	formTable
	// formMetadata: PartialObjectMetadata (client-go's metadata client).
	formMetadata
)

// formOf is the first form the Accept header asks for that the handler
// serves in JSON; the objects themselves otherwise.
func formOf(r *http.Request) form {
	for _, mt := range parseAccept(r.Header.Get("Accept")) {
		if mt.typ != "application/json" || mt.g != "meta.k8s.io" || (mt.v != "v1" && mt.v != "v1beta1") {
			continue
		}
		switch mt.as {
		case "Table":
			return formTable
		case "PartialObjectMetadata", "PartialObjectMetadataList":
			return formMetadata
		}
	}
	return formObject
}
