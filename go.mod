module github.com/wgtensor/wgtensor

go 1.26.8

require (
	github.com/cogentcore/webgpu v0.23.0
	github.com/google/pprof v0.0.0-20261016150608-1facf8f91b50
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
