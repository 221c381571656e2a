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
 * Freezes version 1 of the wire format: the worked examples of docs/formats/rpc.md, byte for byte
 * (GET_MANY, GET_MANY_GROUP, POSITION and their answers, errors).
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
  static final String GET_MANY_GROUP_HEX =
      "00000026"
          + "01"
          + "02"
          + "000000000000000b"
          + "07"
          + "73756d6d617279"
          + "00000002"
          + "0000000000000003"
          + "0000000000000009";
  static final String GROUP_DOCS_HEX =
      "0000002b"
          + "01"
          + "81"
          + "000000000000000b"
          + "00000002"
          + "00"
          + "0000000000000006"
          + "00000000000f4246"
          + "00000007"
          + "7b2274223a317d"
          + "01";
  static final String UNKNOWN_GROUP_HEX =
      "00000039"
          + "01"
          + "ff"
          + "000000000000000c"
          + "0a"
          + "002c"
          + "756e6b6e6f776e2067726f757020276e6f7065273b207468652067726f757073206172652073756d6d617279";
  static final String POSITION_HEX = "0000000e" + "01" + "03" + "000000000000000d" + "00000002";
  static final String POSITION_ANSWER_HEX =
      "00000016" + "01" + "82" + "000000000000000d" + "00000002" + "0000000000001267";
  static final String POSITION_NONE_HEX =
      "00000016" + "01" + "82" + "000000000000000e" + "00000009" + "ffffffffffffffff";
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
  void getManyGroupMatchesTheSpec() {
    assertThat(hex(RpcFrames.getManyGroup(ALLOC, 11, "summary", new long[] {3, 9}, 0, 2)))
        .isEqualTo(GET_MANY_GROUP_HEX);
    // Only the IDs in [from, to) are sent.
    assertThat(hex(RpcFrames.getManyGroup(ALLOC, 11, "summary", new long[] {1, 3, 9, 5}, 1, 3)))
        .isEqualTo(GET_MANY_GROUP_HEX);
  }

  @Test
  void groupDocsMatchesTheSpecAndDecodes() {
    byte[] projection = "{\"t\":1}".getBytes(StandardCharsets.UTF_8);
    Document doc = new Document(3, 6, 1_000_006, projection);
    ByteBuf frame =
        RpcFrames.docs(
            ALLOC,
            11,
            new byte[] {RpcFormat.STATUS_FOUND, RpcFormat.STATUS_MISSING},
            new Document[] {doc, null},
            new String[2],
            1 << 20);
    assertThat(ByteBufUtil.hexDump(frame)).isEqualTo(GROUP_DOCS_HEX);
    frame.skipBytes(RpcFormat.LENGTH_SIZE);
    RpcResponse r = RpcResponse.decode(frame);
    frame.release();
    assertThat(r.requestId()).isEqualTo(11);
    assertThat(r.count()).isEqualTo(2);
    assertThat(r.sequence(0)).isEqualTo(6);
    assertThat(r.acceptedAtMillis(0)).isEqualTo(1_000_006);
    assertThat(r.body(0)).isEqualTo(projection);
    assertThat(r.status(1)).isEqualTo(RpcFormat.STATUS_MISSING);
  }

  @Test
  void unknownGroupErrorMatchesTheSpecAndKeepsTheConnection() {
    String msg = "unknown group 'nope'; the groups are summary";
    assertThat(hex(RpcFrames.error(ALLOC, 12, RpcFormat.ERR_UNKNOWN_GROUP, msg)))
        .isEqualTo(UNKNOWN_GROUP_HEX);
    ByteBuf buf = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(UNKNOWN_GROUP_HEX));
    buf.skipBytes(RpcFormat.LENGTH_SIZE);
    RpcResponse r = RpcResponse.decode(buf);
    assertThat(r.isError()).isTrue();
    assertThat(r.requestId()).isEqualTo(12);
    assertThat(r.errorCode()).isEqualTo(10);
    assertThat(r.message()).isEqualTo(msg);
    assertThat(RpcFormat.errorName(RpcFormat.ERR_UNKNOWN_GROUP)).isEqualTo("unknown_group");
    assertThat(new RpcProtocolException(RpcFormat.ERR_UNKNOWN_GROUP, msg).closesConnection())
        .isFalse();
  }

  @Test
  void groupNamesAreOneTo64BytesOfUtf8() {
    long[] ids = {1};
    String longest = "g".repeat(RpcFormat.MAX_GROUP_NAME_BYTES);
    ByteBuf frame = RpcFrames.getManyGroup(ALLOC, 1, longest, ids, 0, 1);
    assertThat(frame.readInt())
        .isEqualTo(RpcFormat.GET_MANY_GROUP_FIXED_SIZE + RpcFormat.MAX_GROUP_NAME_BYTES + 8);
    assertThat(frame.getUnsignedByte(RpcFormat.LENGTH_SIZE + RpcFormat.PAYLOAD_OFFSET))
        .isEqualTo((short) RpcFormat.MAX_GROUP_NAME_BYTES);
    frame.release();
    for (String bad : new String[] {null, "", longest + "g", "é".repeat(33)}) {
      assertThatThrownBy(() -> RpcFrames.getManyGroup(ALLOC, 1, bad, ids, 0, 1))
          .as("group %s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("1 to 64 bytes");
    }
  }

  @Test
  void positionMatchesTheSpecAndItsAnswerDecodes() {
    assertThat(hex(RpcFrames.position(ALLOC, 13, 2))).isEqualTo(POSITION_HEX);
    ByteBuf frame = RpcFrames.positionAnswer(ALLOC, 13, 2, 4711);
    assertThat(ByteBufUtil.hexDump(frame)).isEqualTo(POSITION_ANSWER_HEX);
    frame.skipBytes(RpcFormat.LENGTH_SIZE);
    RpcResponse r = RpcResponse.decode(frame);
    frame.release();
    assertThat(r.isPosition()).isTrue();
    assertThat(r.isError()).isFalse();
    assertThat(r.requestId()).isEqualTo(13);
    assertThat(r.partition()).isEqualTo(2);
    assertThat(r.nextOffset()).isEqualTo(4711);

    // Request 14 asked for partition 9, of which the node holds nothing.
    assertThat(hex(RpcFrames.positionAnswer(ALLOC, 14, 9, -1))).isEqualTo(POSITION_NONE_HEX);
    ByteBuf none = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(POSITION_NONE_HEX));
    none.skipBytes(RpcFormat.LENGTH_SIZE);
    RpcResponse n = RpcResponse.decode(none);
    assertThat(n.partition()).isEqualTo(9);
    assertThat(n.nextOffset()).isEqualTo(-1);

    // A partition is unsigned on the wire: one above 2^31 - 1 comes back as asked.
    ByteBuf high = RpcFrames.positionAnswer(ALLOC, 15, 0xFFFF_FFFFL, -1);
    high.skipBytes(RpcFormat.LENGTH_SIZE);
    assertThat(RpcResponse.decode(high).partition()).isEqualTo(0xFFFF_FFFFL);
    high.release();
  }

  @Test
  void aPositionAnswerCutShortLongerOrBelowMinusOneIsMalformed() {
    byte[] whole = ByteBufUtil.decodeHexDump(POSITION_ANSWER_HEX);
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
    byte[] longer = java.util.Arrays.copyOf(whole, whole.length + 1);
    assertThatThrownBy(
            () ->
                RpcResponse.decode(
                    Unpooled.wrappedBuffer(
                        longer, RpcFormat.LENGTH_SIZE, longer.length - RpcFormat.LENGTH_SIZE)))
        .isInstanceOf(RpcProtocolException.class)
        .hasMessageContaining("1 bytes after it");
    ByteBuf below = RpcFrames.positionAnswer(ALLOC, 1, 0, -2);
    below.skipBytes(RpcFormat.LENGTH_SIZE);
    assertThatThrownBy(() -> RpcResponse.decode(below))
        .isInstanceOf(RpcProtocolException.class)
        .hasMessageContaining("next offset -2");
    below.release();
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
