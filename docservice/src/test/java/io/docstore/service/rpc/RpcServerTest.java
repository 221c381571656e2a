package io.docstore.service.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.wire.RpcFormat;
import io.docstore.client.wire.RpcFrames;
import io.docstore.client.wire.RpcResponse;
import io.docstore.io.TestSupport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RpcServerTest {

  private final TestSource source = new TestSource().fill(2000);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private RpcServer server;

  private RpcServer start(RpcServer.Options.Builder options) throws IOException {
    server = new RpcServer(source, options.port(0).build(), registry);
    server.start();
    return server;
  }

  private RpcServer start() throws IOException {
    return start(RpcServer.Options.builder().frameTimeout(Duration.ofMillis(300)));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** A well-behaved client still gets correct answers. */
  private void assertServes() throws IOException {
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(99, 5, 100_000);
      RpcResponse r = c.read();
      assertThat(r.requestId()).isEqualTo(99);
      assertThat(r.status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
      assertThat(r.body(0)).isEqualTo(source.doc(5).body());
      assertThat(r.status(1)).isEqualTo(RpcFormat.STATUS_MISSING);
    }
  }

  static byte[] frame(int version, int opcode, long requestId, int count, long... ids)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(RpcFormat.GET_MANY_FIXED_SIZE + 8 * ids.length);
    out.writeByte(version);
    out.writeByte(opcode);
    out.writeLong(requestId);
    out.writeInt(count);
    for (long id : ids) {
      out.writeLong(id);
    }
    return bytes.toByteArray();
  }

  @Test
  void roundTripFoundAndMissing() throws IOException {
    start();
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(7, 3, 5000, 4, 3);
      RpcResponse r = c.read();
      assertThat(r.requestId()).isEqualTo(7);
      assertThat(r.isError()).isFalse();
      assertThat(r.count()).isEqualTo(4);
      assertThat(r.status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
      assertThat(r.sequence(0)).isEqualTo(4);
      assertThat(r.acceptedAtMillis(0)).isEqualTo(source.doc(3).acceptedAtMillis());
      assertThat(r.body(0)).isEqualTo(source.doc(3).body());
      assertThat(r.status(1)).isEqualTo(RpcFormat.STATUS_MISSING);
      assertThat(r.body(2)).isEqualTo(source.doc(4).body());
      assertThat(r.body(3)).isEqualTo(source.doc(3).body());
      c.getMany(8);
      assertThat(c.read().count()).isZero();
    }
    assertThat(registry.counter("docstore.rpc.requests").count()).isEqualTo(2);
  }

  @Test
  void thousandIdsAnsweredAndThousandAndOneRefusedOnAnOpenConnection() throws IOException {
    start();
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(1, LongStream.range(0, 1000).toArray());
      RpcResponse r = c.read();
      assertThat(r.count()).isEqualTo(1000);
      assertThat(r.body(999)).isEqualTo(source.doc(999).body());
      c.getMany(2, LongStream.range(0, 1001).toArray());
      RpcResponse refused = c.read();
      assertThat(refused.requestId()).isEqualTo(2);
      assertThat(refused.errorCode()).isEqualTo(RpcFormat.ERR_TOO_MANY_IDS);
      c.getMany(3, 1);
      assertThat(c.read().sequence(0)).isEqualTo(2);
    }
  }

  @Test
  void responsesOvertakeSlowerEarlierRequests() throws IOException {
    start();
    CountDownLatch gate = source.block(1);
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(10, 1);
      c.getMany(11, 2);
      assertThat(c.read().requestId()).isEqualTo(11);
      gate.countDown();
      RpcResponse first = c.read();
      assertThat(first.requestId()).isEqualTo(10);
      assertThat(first.body(0)).isEqualTo(source.doc(1).body());
    }
  }

  @Test
  void corruptDocumentIsReportedAndOthersServed() throws IOException {
    start();
    source.corrupt(13);
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(5, 12, 13, 14);
      RpcResponse r = c.read();
      assertThat(r.status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
      assertThat(r.status(1)).isEqualTo(RpcFormat.STATUS_CORRUPT);
      assertThat(r.message(1)).contains("segment-7").contains("4096");
      assertThat(r.status(2)).isEqualTo(RpcFormat.STATUS_FOUND);
    }
    assertThat(registry.counter("docstore.rpc.documents", "status", "corrupt").count())
        .isEqualTo(1);
  }

  @Test
  void aBrokenSourceAnswersInternalAndTheConnectionKeepsWorking() throws IOException {
    start();
    source.put(new io.docstore.client.Document(77, 1, 1, null));
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(4, 5, 77);
      RpcResponse r = c.read();
      assertThat(r.requestId()).isEqualTo(4);
      assertThat(r.errorCode()).isEqualTo(RpcFormat.ERR_INTERNAL);
      c.getMany(5, 5);
      assertThat(c.read().status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
    }
  }

  @Test
  void wrongVersionIsRefusedAndClosed() throws IOException {
    start();
    try (RawConnection c = new RawConnection(server.port())) {
      c.send(frame(2, RpcFormat.OP_GET_MANY, 42, 1, 5));
      RpcResponse r = c.read();
      assertThat(r.requestId()).isEqualTo(42);
      assertThat(r.errorCode()).isEqualTo(RpcFormat.ERR_BAD_VERSION);
      assertThat(c.closedByServer()).isTrue();
    }
    assertServes();
  }

  @Test
  void unknownOpcodeAndNegativeIdAreRefusedButTheConnectionStays() throws IOException {
    start();
    try (RawConnection c = new RawConnection(server.port())) {
      c.send(frame(1, 0x33, 1, 1, 5));
      assertThat(c.read().errorCode()).isEqualTo(RpcFormat.ERR_BAD_OPCODE);
      c.send(frame(1, RpcFormat.OP_GET_MANY, 2, 2, 5, -1));
      RpcResponse r = c.read();
      assertThat(r.requestId()).isEqualTo(2);
      assertThat(r.errorCode()).isEqualTo(RpcFormat.ERR_BAD_ID);
      c.getMany(3, 5);
      assertThat(c.read().status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
    }
  }

  /** A POSITION frame carrying {@code payload} as its partition field (4 bytes when valid). */
  static byte[] positionFrame(long requestId, byte[] payload) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(RpcFormat.PAYLOAD_OFFSET + payload.length);
    out.writeByte(RpcFormat.VERSION);
    out.writeByte(RpcFormat.OP_POSITION);
    out.writeLong(requestId);
    out.write(payload);
    return bytes.toByteArray();
  }

  @Test
  void positionAnswersHowFarReadsSeeAPartitionAndMinusOneForOneNotHeld() throws IOException {
    source.position(2, 4711).position(0, 0);
    start();
    long before = (long) registry.counter("docstore.rpc.requests").count();
    try (RawConnection c = new RawConnection(server.port())) {
      long[][] asked = {{2, 4711}, {0, 0}, {3, -1}, {70_000, -1}, {0xFFFF_FFFFL, -1}};
      for (int i = 0; i < asked.length; i++) {
        byte[] partition = java.nio.ByteBuffer.allocate(4).putInt((int) asked[i][0]).array();
        c.send(positionFrame(20 + i, partition));
        RpcResponse r = c.read();
        assertThat(r.isPosition()).as("partition %d", asked[i][0]).isTrue();
        assertThat(r.requestId()).isEqualTo(20 + i);
        assertThat(r.partition()).isEqualTo(asked[i][0]);
        assertThat(r.nextOffset()).as("partition %d", asked[i][0]).isEqualTo(asked[i][1]);
      }
      c.getMany(30, 5);
      assertThat(c.read().status(0)).as("the connection stays").isEqualTo(RpcFormat.STATUS_FOUND);
    }
    assertThat((long) registry.counter("docstore.rpc.requests").count() - before).isEqualTo(6);
  }

  @Test
  void aPositionFrameOfAnotherLengthIsMalformedAndClosed() throws IOException {
    start();
    for (byte[] payload : new byte[][] {new byte[0], new byte[3], new byte[5], new byte[12]}) {
      try (RawConnection c = new RawConnection(server.port())) {
        c.send(positionFrame(8, payload));
        RpcResponse r = c.read();
        assertThat(r.errorCode()).as("%d bytes", payload.length).isEqualTo(RpcFormat.ERR_MALFORMED);
        assertThat(r.requestId()).isEqualTo(8);
        assertThat(r.message()).contains("not a partition");
        assertThat(c.closedByServer()).isTrue();
      }
    }
    assertServes();
  }

  /**
   * A GET_MANY_GROUP frame whose group length field says {@code groupLen} and carries {@code name}.
   */
  static byte[] groupFrame(long requestId, int groupLen, byte[] name, int count, long... ids)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(RpcFormat.PAYLOAD_OFFSET + 1 + name.length + 4 + 8 * ids.length);
    out.writeByte(RpcFormat.VERSION);
    out.writeByte(RpcFormat.OP_GET_MANY_GROUP);
    out.writeLong(requestId);
    out.writeByte(groupLen);
    out.write(name);
    out.writeInt(count);
    for (long id : ids) {
      out.writeLong(id);
    }
    return bytes.toByteArray();
  }

  @Test
  void unknownGroupIsRefusedWithTheSourcesMessageButTheConnectionStays() throws IOException {
    start(); // TestSource has no groups: every group is unknown
    try (RawConnection c = new RawConnection(server.port())) {
      c.send(
          RpcFrames.getManyGroup(
              io.netty.buffer.ByteBufAllocator.DEFAULT, 4, "summary", new long[] {5, 6}, 0, 2));
      RpcResponse r = c.read();
      assertThat(r.requestId()).isEqualTo(4);
      assertThat(r.errorCode()).isEqualTo(RpcFormat.ERR_UNKNOWN_GROUP);
      assertThat(r.message()).isEqualTo("no field groups are configured here");
      c.getMany(5, 5);
      assertThat(c.read().status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
    }
    assertThat(registry.counter("docstore.rpc.errors", "code", "unknown_group").count())
        .isEqualTo(1);
  }

  @Test
  void aBadGroupLengthIsMalformedAndClosed() throws IOException {
    start();
    byte[] name = "summary".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] longest = new byte[RpcFormat.MAX_GROUP_NAME_BYTES + 1];
    java.util.Arrays.fill(longest, (byte) 'g');
    byte[][] frames = {
      groupFrame(3, 0, new byte[0], 1, 5), // empty name
      groupFrame(3, longest.length, longest, 1, 5), // 65 bytes
      groupFrame(3, 200, name, 1, 5), // runs past the frame
      groupFrame(3, name.length, name, 2, 5), // count disagrees with the length
      java.util.Arrays.copyOf(groupFrame(3, name.length, name, 1, 5), 4 + 10) // no group at all
    };
    frames[4][3] = 10; // length field: a bare header
    for (int i = 0; i < frames.length; i++) {
      try (RawConnection c = new RawConnection(server.port())) {
        c.send(frames[i]);
        RpcResponse r = c.read();
        assertThat(r.errorCode()).as("frame %d", i).isEqualTo(RpcFormat.ERR_MALFORMED);
        assertThat(r.requestId()).isEqualTo(3);
        assertThat(c.closedByServer()).isTrue();
      }
    }
    assertServes();
  }

  @Test
  void countDisagreeingWithFrameLengthIsMalformed() throws IOException {
    start();
    try (RawConnection c = new RawConnection(server.port())) {
      c.send(frame(1, RpcFormat.OP_GET_MANY, 3, 5, 1, 2, 3));
      assertThat(c.read().errorCode()).isEqualTo(RpcFormat.ERR_MALFORMED);
      assertThat(c.closedByServer()).isTrue();
    }
    assertServes();
  }

  @Test
  void truncatedFrameTimesOutAsMalformed() throws IOException {
    start();
    byte[] whole = frame(1, RpcFormat.OP_GET_MANY, 3, 3, 1, 2, 3);
    for (int cut : new int[] {2, 4, 10, whole.length - 1}) {
      try (RawConnection c = new RawConnection(server.port())) {
        c.send(java.util.Arrays.copyOf(whole, cut));
        RpcResponse r = c.read();
        assertThat(r.errorCode()).as("cut at %d", cut).isEqualTo(RpcFormat.ERR_MALFORMED);
        assertThat(r.message()).contains("incomplete frame");
        assertThat(c.closedByServer()).isTrue();
      }
    }
    assertServes();
  }

  @Test
  void tooShortAndOversizedFramesAreRefusedAndClosed() throws IOException {
    start();
    int max = RpcServer.Options.defaults().maxFrameBytes();
    for (int length : new int[] {0, RpcFormat.MIN_BODY_SIZE - 1, max + 1, Integer.MAX_VALUE, -1}) {
      try (RawConnection c = new RawConnection(server.port())) {
        c.send(
            new byte[] {
              (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
            });
        RpcResponse r = c.read();
        int want =
            length >= 0 && length < RpcFormat.MIN_BODY_SIZE
                ? RpcFormat.ERR_MALFORMED
                : RpcFormat.ERR_FRAME_TOO_LARGE;
        assertThat(r.errorCode()).as("length %d", length).isEqualTo(want);
        assertThat(c.closedByServer()).isTrue();
      }
    }
    assertServes();
    assertThat(registry.counter("docstore.rpc.errors", "code", "frame_too_large").count())
        .isEqualTo(3);
  }

  @Test
  void garbageNeverCrashesTheServer() throws IOException {
    start();
    long seed = TestSupport.seed("RpcServerTest.garbage");
    Random rnd = new Random(seed);
    for (int i = 0; i < 40; i++) {
      byte[] junk = new byte[1 + rnd.nextInt(200)];
      rnd.nextBytes(junk);
      if (junk.length > 4 && rnd.nextBoolean()) {
        // A plausible length so the garbage reaches the body parser.
        junk[0] = 0;
        junk[1] = 0;
        junk[2] = 0;
        junk[3] = (byte) Math.max(RpcFormat.MIN_BODY_SIZE, junk.length - 4);
        junk[4] = rnd.nextInt(4) == 0 ? 0 : RpcFormat.VERSION;
      }
      try (RawConnection c = new RawConnection(server.port())) {
        c.send(junk);
        // Either an error frame or a valid answer to an accidentally valid request; never a hang.
        RpcResponse r = c.read();
        assertThat(r).as("seed %d case %d", seed, i).isNotNull();
      } catch (java.io.EOFException e) {
        throw new AssertionError("seed " + seed + " case " + i + ": closed without an answer", e);
      }
    }
    assertServes();
  }

  @Test
  void fullLookupQueueAnswersOverloaded() throws IOException {
    start(RpcServer.Options.builder().lookupThreads(1).maxQueuedRequests(1));
    CountDownLatch gate = source.block(1);
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(1, 1); // runs and blocks
      c.getMany(2, 1); // queued
      c.getMany(3, 2); // refused
      RpcResponse r = c.read();
      assertThat(r.requestId()).isEqualTo(3);
      assertThat(r.errorCode()).isEqualTo(RpcFormat.ERR_OVERLOADED);
      gate.countDown();
      assertThat(c.read().requestId()).isIn(1L, 2L);
      assertThat(c.read().requestId()).isIn(1L, 2L);
    }
  }

  @Test
  void oversizedResponseMarksTheRestNotSent() throws IOException {
    start(RpcServer.Options.builder().maxResponseBytes(2048));
    source.put(1500, 9, 5000);
    try (RawConnection c = new RawConnection(server.port())) {
      c.getMany(1, LongStream.range(0, 30).toArray());
      RpcResponse r = c.read();
      assertThat(r.status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
      assertThat(r.status(29)).isEqualTo(RpcFormat.STATUS_NOT_SENT);
      c.getMany(2, 1500, 1);
      RpcResponse big = c.read();
      assertThat(big.status(0)).isEqualTo(RpcFormat.STATUS_ERROR);
      assertThat(big.status(1)).isEqualTo(RpcFormat.STATUS_FOUND);
    }
  }

  @Test
  void connectionsBeyondTheCapAreRefused() throws IOException {
    start(RpcServer.Options.builder().maxConnections(1));
    try (RawConnection first = new RawConnection(server.port())) {
      first.getMany(1, 5); // the first connection is surely counted once it has an answer
      assertThat(first.read().status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
      try (RawConnection second = new RawConnection(server.port())) {
        RpcResponse r = second.read();
        assertThat(r.errorCode()).isEqualTo(RpcFormat.ERR_OVERLOADED);
        assertThat(second.closedByServer()).isTrue();
      }
      first.getMany(2, 5);
      assertThat(first.read().status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
    }
  }

  @Test
  void optionsRejectAFrameLimitTooSmallForTheBatch() {
    assertThatThrownBy(() -> RpcServer.Options.builder().maxIdsPerRequest(10_000).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot hold");
  }

  @Test
  void clientThatNeverReadsCannotStallOthers() throws Exception {
    start(RpcServer.Options.builder().maxInFlightPerConnection(4));
    long[] ids = LongStream.range(0, 1000).toArray();
    java.net.Socket greedy = new java.net.Socket("127.0.0.1", server.port());
    greedy.setReceiveBufferSize(4096);
    Thread writer =
        new Thread(
            () -> {
              try {
                java.io.OutputStream out = greedy.getOutputStream();
                io.netty.buffer.ByteBuf frame =
                    RpcFrames.getMany(
                        io.netty.buffer.ByteBufAllocator.DEFAULT, 1, ids, 0, ids.length);
                byte[] bytes = new byte[frame.readableBytes()];
                frame.readBytes(bytes);
                frame.release();
                while (true) {
                  out.write(bytes); // blocks once the server stops reading this connection
                }
              } catch (IOException closed) {
                // The test closed the socket.
              }
            });
    writer.setDaemon(true);
    writer.start();
    try {
      // The greedy client runs into back-pressure: its answered requests stop growing (without
      // back-pressure the server would read and answer them without end, and never plateau) ...
      awaitPlateau();
      // ... while everyone else is still served.
      for (int i = 0; i < 5; i++) {
        assertServes();
      }
      // Bounded by socket buffers (a few MB of 121 KB answers) plus 4 in flight, not by time.
      assertThat(awaitPlateau()).isLessThan(200);
    } finally {
      greedy.close();
    }
  }

  /** Waits until the answered-request count holds still for 1 s; returns it. */
  private double awaitPlateau() {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
    double last = -1;
    long stableSince = System.nanoTime();
    while (true) {
      double now = registry.counter("docstore.rpc.requests").count();
      if (now != last) {
        last = now;
        stableSince = System.nanoTime();
      } else if (System.nanoTime() - stableSince
              > java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1000)
          && now > 0) {
        return now;
      }
      assertThat(System.nanoTime()).as("requests never stopped growing").isLessThan(deadline);
      Thread.onSpinWait();
    }
  }
}
