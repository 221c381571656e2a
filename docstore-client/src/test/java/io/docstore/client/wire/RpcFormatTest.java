package io.docstore.client.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.Document;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Freezes version 1 of the wire format: the worked examples of docs/formats/rpc.md, byte for byte.
 */
class RpcFormatTest {

  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  static final String GET_MANY_HEX =
      "0000001e"
          + "01"
          + "01"
          + "0000000000000007"
          + "00000002"
          + "0000000000000003"
          + "0000000000000009";
  static final String DOCS_HEX =
      "00000026"
          + "01"
          + "81"
          + "0000000000000007"
          + "00000002"
          + "00"
          + "0000000000000004"
          + "00000000000f4244"
          + "00000002"
          + "6869"
          + "01";
  static final String ERROR_HEX =
      "00000018" + "01" + "ff" + "0000000000000008" + "05" + "000b" + "3130303120494473203e31";

  private static String hex(ByteBuf buf) {
    String s = ByteBufUtil.hexDump(buf);
    buf.release();
    return s;
  }

  @Test
  void getManyMatchesTheSpec() {
    assertThat(hex(RpcFrames.getMany(ALLOC, 7, new long[] {3, 9}, 0, 2))).isEqualTo(GET_MANY_HEX);
  }

  @Test
  void docsMatchesTheSpecAndDecodes() {
    Document doc = new Document(3, 4, 1_000_004, "hi".getBytes(StandardCharsets.UTF_8));
    ByteBuf frame =
        RpcFrames.docs(
            ALLOC,
            7,
            new byte[] {RpcFormat.STATUS_FOUND, RpcFormat.STATUS_MISSING},
            new Document[] {doc, null},
            new String[2],
            1 << 20);
    assertThat(ByteBufUtil.hexDump(frame)).isEqualTo(DOCS_HEX);
    frame.skipBytes(RpcFormat.LENGTH_SIZE);
    RpcResponse r = RpcResponse.decode(frame);
    frame.release();
    assertThat(r.requestId()).isEqualTo(7);
    assertThat(r.status(0)).isEqualTo(RpcFormat.STATUS_FOUND);
    assertThat(r.sequence(0)).isEqualTo(4);
    assertThat(r.acceptedAtMillis(0)).isEqualTo(1_000_004);
    assertThat(r.body(0)).isEqualTo("hi".getBytes(StandardCharsets.UTF_8));
    assertThat(r.status(1)).isEqualTo(RpcFormat.STATUS_MISSING);
  }

  @Test
  void errorMatchesTheSpec() {
    assertThat(hex(RpcFrames.error(ALLOC, 8, RpcFormat.ERR_TOO_MANY_IDS, "1001 IDs >1")))
        .isEqualTo(ERROR_HEX);
  }

  @Test
  void specDocsFrameDecodes() {
    ByteBuf buf = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(DOCS_HEX));
    buf.skipBytes(RpcFormat.LENGTH_SIZE);
    RpcResponse r = RpcResponse.decode(buf);
    assertThat(r.count()).isEqualTo(2);
    assertThat(r.status(1)).isEqualTo(RpcFormat.STATUS_MISSING);
  }

  @Test
  void everyTruncationOfAResponseIsMalformedNeverAnotherError() {
    byte[] whole = ByteBufUtil.decodeHexDump(DOCS_HEX);
    for (int cut = RpcFormat.LENGTH_SIZE + RpcFormat.MIN_BODY_SIZE; cut < whole.length; cut++) {
      ByteBuf buf =
          Unpooled.wrappedBuffer(whole, RpcFormat.LENGTH_SIZE, cut - RpcFormat.LENGTH_SIZE);
      assertThatThrownBy(() -> RpcResponse.decode(buf))
          .as("cut at %d", cut)
          .isInstanceOf(RpcProtocolException.class)
          .satisfies(
              e ->
                  assertThat(((RpcProtocolException) e).code()).isEqualTo(RpcFormat.ERR_MALFORMED));
    }
  }

  @Test
  void longMessagesAreCutToTheLimit() {
    ByteBuf frame = RpcFrames.error(ALLOC, 1, RpcFormat.ERR_INTERNAL, "é".repeat(5000));
    frame.skipBytes(RpcFormat.LENGTH_SIZE);
    RpcResponse r = RpcResponse.decode(frame);
    frame.release();
    assertThat(r.message().getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(RpcFormat.MAX_MESSAGE_BYTES);
  }
}
