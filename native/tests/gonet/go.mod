module hnsim.test/gonet

go 1.19
