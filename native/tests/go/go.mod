module hnsim.test/wine

go 1.19
