/**
 * A real Apache Kafka broker on this machine, for tests and local scripts: {@link
 * io.docstore.kafka.local.LocalKafka} runs a single-node Kafka 4 (broker and KRaft controller, no
 * ZooKeeper) on loopback ports in its own JVM, and {@link io.docstore.kafka.local.KafkaProcess}
 * starts that JVM as a child process on free ports with a throwaway directory, stops it, kills it
 * and restarts it on the same directory.
 *
 * <p>It owns the broker's settings for tests and development and the way its class path is found
 * ({@code target/kafka-local.classpath}, written by the build); it knows nothing of documents or of
 * the message format (docs/formats/kafka-messages.md) and must not depend on any other docstore
 * module. Other modules use it in test scope, without its dependencies: the broker runs on this
 * module's class path in its own JVM, never in theirs.
 */
package io.docstore.kafka.local;
