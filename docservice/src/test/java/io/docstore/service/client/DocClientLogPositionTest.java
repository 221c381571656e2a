package io.docstore.service.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.DocClient;
import io.docstore.client.DocClientException;
import io.docstore.client.DocClientException.Reason;
import io.docstore.client.Document;
import io.docstore.client.LogPosition;
import io.docstore.client.wire.RpcFormat;
import io.docstore.client.wire.RpcFrames;
import io.docstore.service.rpc.RpcServer;
import io.docstore.service.rpc.TestSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code DocClient.getAtLeast(id, LogPosition)} over real RPC servers whose sources say how far
 * their reads see a partition: it reads only from a server past the write's offset, whatever order
 * the client asks them in; absent there is null; a partition no server holds times out naming it; a
 * server that predates POSITION is refused by name. (Against shards fed by a real broker:
 * ReadYourWritesKafkaTest.)
 */
class DocClientLogPositionTest {

  private final List<RpcServer> servers = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void stop() {
    servers.forEach(RpcServer::close);
  }

  private InetSocketAddress serve(TestSource source) throws IOException {
    RpcServer s = new RpcServer(source, RpcServer.Options.builder().port(0).build(), registry);
    s.start();
    servers.add(s);
    return new InetSocketAddress("127.0.0.1", s.port());
  }

  private static DocClient client(List<InetSocketAddress> addrs, Duration timeout)
      throws InterruptedException {
    DocClient c = DocClient.builder().servers(addrs).requestTimeout(timeout).build();
    for (InetSocketAddress a : addrs) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!c.isConnected(a)) {
        assertThat(System.nanoTime()).as("connected to %s", a).isLessThan(deadline);
        Thread.sleep(5);
      }
    }
    return c;
  }

  @Test
  void readsFromAServerPastTheWriteAndNeverFromOneBehind() throws Exception {
    // Partition 4: "behind" sees up to offset 100 and has version 1 of document 7; "past" sees up
    // to 101 and has version 2; document 8 is deleted on "past", still there on "behind".
    TestSource behind = new TestSource().position(4, 100).put(7, 1, 16).put(8, 1, 16);
    TestSource past = new TestSource().position(4, 101).put(7, 2, 16);
    List<InetSocketAddress> both = List.of(serve(behind), serve(past));
    for (int c = 0; c < 4; c++) { // each client orders the servers its own way
      try (DocClient client = client(both, Duration.ofSeconds(2))) {
        for (int i = 0; i < 5; i++) {
          Document d = client.getAtLeast(7, new LogPosition(4, 100));
          assertThat(d.sequence()).as("client %d, read %d", c, i).isEqualTo(2);
          assertThat(client.getAtLeast(8, new LogPosition(4, 100))).as("deleted").isNull();
          assertThat(client.getAtLeastAsync(7, new LogPosition(4, 99)).get(5, TimeUnit.SECONDS))
              .as("both past 99: either answers")
              .isNotNull();
        }
      }
    }
  }

  @Test
  void aPositionNoServerReachesTimesOutNamingWhatWasSeen() throws Exception {
    TestSource s = new TestSource().position(4, 100).put(7, 1, 16);
    List<InetSocketAddress> one = List.of(serve(s));
    try (DocClient client = client(one, Duration.ofMillis(300))) {
      assertThatThrownBy(() -> client.getAtLeast(7, new LogPosition(4, 100)))
          .isInstanceOf(DocClientException.class)
          .satisfies(e -> assertThat(((DocClientException) e).reason()).isEqualTo(Reason.TIMEOUT))
          .hasMessageContaining("no server has applied partition 4 of the update log past offset")
          .hasMessageContaining("highest position seen: 100");
      assertThatThrownBy(() -> client.getAtLeast(7, new LogPosition(9, 0)))
          .isInstanceOf(DocClientException.class)
          .satisfies(e -> assertThat(((DocClientException) e).reason()).isEqualTo(Reason.TIMEOUT))
          .hasMessageContaining("partition 9")
          .hasMessageContaining("no server holds anything of that partition");
      assertThatThrownBy(() -> client.getAtLeast(7, new LogPosition(-1, 0)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getAtLeast(-7, new LogPosition(4, 0)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /**
   * A server of the version before POSITION, as far as this request goes: it reads version 1 frames
   * and answers an opcode it lacks as RpcServerHandler then did ({@code bad_opcode}, "unknown
   * opcode 3"), keeping the connection.
   */
  @Test
  void aServerThatPredatesPositionIsRefusedByName() throws Exception {
    try (ServerSocket old = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      Thread t = new Thread(() -> answerBadOpcode(old), "old-server");
      t.setDaemon(true);
      t.start();
      InetSocketAddress addr = new InetSocketAddress("127.0.0.1", old.getLocalPort());
      try (DocClient client = client(List.of(addr), Duration.ofSeconds(2))) {
        assertThatThrownBy(() -> client.getAtLeast(7, new LogPosition(0, 5)))
            .isInstanceOf(DocClientException.class)
            .satisfies(
                e -> {
                  DocClientException d = (DocClientException) e;
                  assertThat(d.reason()).isEqualTo(Reason.REJECTED);
                  assertThat(d.serverMessage()).isEqualTo("unknown opcode 3");
                })
            .hasMessageContaining(addr.toString())
            .hasMessageContaining("does not answer POSITION")
            .hasMessageContaining("predates read-your-writes by log position");
      }
    }
  }

  private static void answerBadOpcode(ServerSocket server) {
    try (Socket s = server.accept()) {
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        long requestId = java.nio.ByteBuffer.wrap(body).getLong(RpcFormat.REQUEST_ID_OFFSET);
        ByteBuf frame =
            RpcFrames.error(
                UnpooledByteBufAllocator.DEFAULT,
                requestId,
                RpcFormat.ERR_BAD_OPCODE,
                "unknown opcode " + body[RpcFormat.OPCODE_OFFSET]);
        byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes);
        frame.release();
        out.write(bytes);
        out.flush();
      }
    } catch (IOException e) {
      // the client closed
    }
  }
}
