package fxsvc

// RedisGateStores exposes redisGateStores to the tests of the wiring.
var RedisGateStores = redisGateStores
