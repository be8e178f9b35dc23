# The controller image: `make image` (or docker build --build-arg VERSION=...).
# A static binary on distroless, run as its nonroot user; deploy/ runs it.
FROM golang:1.26 AS build
WORKDIR /src
ARG VERSION=v0.0.0-dev
ARG COMMIT=unknown
ARG DATE=unknown
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
COPY go.mod go.sum ./
RUN go mod download
COPY cmd/ cmd/
COPY internal/ internal/
COPY pkg/ pkg/
# The same ldflags as the Makefile's build target.
RUN PKG=github.com/kubectl-reflect/kubectl-reflect && \
    go build -trimpath \
      -ldflags "-s -w -X $PKG/internal/version.Version=$VERSION -X $PKG/internal/version.Commit=$COMMIT -X $PKG/internal/version.Date=$DATE" \
      -o /out/kubectl-reflect ./cmd/kubectl-reflect

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/kubectl-reflect /kubectl-reflect
USER 65532:65532
ENTRYPOINT ["/kubectl-reflect"]
