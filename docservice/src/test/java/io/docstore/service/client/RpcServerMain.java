package io.docstore.service.client;

import io.docstore.service.rpc.RpcServer;
import io.docstore.service.rpc.TestSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child-JVM RPC server for kill tests: serves {@code TestSource.fill(N)} on a free loopback port,
 * prints {@code PORT <n>} and runs until killed.
 */
public final class RpcServerMain {

  private RpcServerMain() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    // Quiet: the parent reads this process's stdout for the port line.
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    TestSource source = new TestSource().fill(Integer.parseInt(args[0]));
    RpcServer server =
        new RpcServer(
            source, RpcServer.Options.builder().port(0).build(), new SimpleMeterRegistry());
    server.start();
    System.out.println("PORT " + server.port());
    System.out.flush();
    Thread.currentThread().join(); // serve until SIGKILL
  }
}
