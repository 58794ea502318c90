# The two commands a developer needs are in the README:
#   go run ./cmd/demo      the demo
#   make test              every check and test (installs what they need)

.PHONY: test bench generate

test:
	bash scripts/test.sh

bench:
	bash scripts/bench.sh

generate:
	go tool templ generate -path .
	go generate ./middleware
	go generate ./web/static
