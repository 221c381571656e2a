/**
 * The torture suite: the assembled service under kill -9, named kill points, full disks, failing
 * fsyncs, corruption at rest, a failing cache tier, hostile clients and a soak. Each scenario
 * records every acknowledged write ({@link io.docstore.service.torture.AckLedger}), injects its
 * fault, lets the system recover and checks the ledger against what is served, then prints one
 * verdict line ({@link io.docstore.service.torture.Verdict}). Scenarios run on loopback only, bound
 * every loop and stop every process they start. Not for: unit tests of single classes.
 */
package io.docstore.service.torture;
