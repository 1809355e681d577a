// RLP against the published Ethereum test vectors. The cases below are copied from the
// ethereum/tests repository, RLPTests/rlptest.json (valid encodings) and
// RLPTests/invalidRLPTest.json (encodings a decoder must refuse), as literals.
#include "infra/adapters/evm/rlp.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace payrail::infra::evm {
namespace {

using namespace std::literals;

// An input of rlptest.json: a byte string, an integer (encoded as a scalar) or a list.
struct Input {
  enum class Kind { bytes, integer, list } kind = Kind::bytes;
  Bytes bytes;
  std::vector<Input> items;
};

Input text(std::string_view bytes) {
  return {Input::Kind::bytes, Bytes(bytes), {}};
}
Input integer(const char* decimal) {
  return {Input::Kind::integer, U256::from_decimal(decimal).value().to_minimal_big_endian(), {}};
}
// 2^256 does not fit a U256: that case is written as its big-endian bytes.
Input bytes_hex(std::string_view hex) {
  return {Input::Kind::bytes, from_hex(hex).value(), {}};
}
Input list(std::vector<Input> items) {
  return {Input::Kind::list, {}, std::move(items)};
}

Bytes encode(const Input& input) {
  switch (input.kind) {
    case Input::Kind::bytes:
      return rlp::encode_bytes(input.bytes);
    case Input::Kind::integer:
      return rlp::encode_scalar(*U256::from_big_endian(input.bytes));
    case Input::Kind::list:
      break;
  }
  std::vector<Bytes> encoded;
  for (const auto& item : input.items) encoded.push_back(encode(item));
  return rlp::encode_list(encoded);
}

void expect_same(const rlp::Item& item, const Input& input) {
  ASSERT_EQ(item.is_list, input.kind == Input::Kind::list);
  if (!item.is_list) {
    EXPECT_EQ(to_hex(item.bytes), to_hex(input.bytes));
    return;
  }
  ASSERT_EQ(item.items.size(), input.items.size());
  for (std::size_t i = 0; i < item.items.size(); ++i) expect_same(item.items[i], input.items[i]);
}

struct ValidCase {
  const char* name;
  Input input;
  const char* encoded;
};

// RLPTests/rlptest.json
const std::vector<ValidCase>& valid_cases() {
  static const std::vector<ValidCase> cases = {
      {"emptystring", text(""sv), "0x80"},
      {"bytestring00", text("\x00"sv), "0x00"},
      {"bytestring01", text("\x01"sv), "0x01"},
      {"bytestring7F", text("\x7f"sv), "0x7f"},
      {"shortstring", text("dog"sv), "0x83646f67"},
      {"shortstring2", text("Lorem ipsum dolor sit amet, consectetur adipisicing eli"sv),
       "0xb74c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e736563746574757220616469"
       "7069736963696e6720656c69"},
      {"longstring", text("Lorem ipsum dolor sit amet, consectetur adipisicing elit"sv),
       "0xb8384c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e7365637465747572206164"
       "697069736963696e6720656c6974"},
      {"longstring2",
       text("Lorem ipsum dolor sit amet, consectetur adipiscing elit. Curabitur mauris magna,"
            " suscipit sed vehicula non, iaculis faucibus tortor. Proin suscipit ultricies ma"
            "lesuada. Duis tortor elit, dictum quis tristique eu, ultrices at risus. Morbi a "
            "est imperdiet mi ullamcorper aliquet suscipit nec lorem. Aenean quis leo mollis,"
            " vulputate elit varius, consequat enim. Nulla ultrices turpis justo, et posuere "
            "urna consectetur nec. Proin non convallis metus. Donec tempor ipsum in mauris co"
            "ngue sollicitudin. Vestibulum ante ipsum primis in faucibus orci luctus et ultri"
            "ces posuere cubilia Curae; Suspendisse convallis sem vel massa faucibus, eget la"
            "cinia lacus tempor. Nulla quis ultricies purus. Proin auctor rhoncus nibh condim"
            "entum mollis. Aliquam consequat enim at metus luctus, a eleifend purus egestas. "
            "Curabitur at nibh metus. Nam bibendum, neque at auctor tristique, lorem libero a"
            "liquet arcu, non interdum tellus lectus sit amet eros. Cras rhoncus, metus ac or"
            "nare cursus, dolor justo ultrices metus, at ullamcorper volutpat"sv),
       "0xb904004c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e73656374657475722061"
       "646970697363696e6720656c69742e20437572616269747572206d6175726973206d61676e612c207375736369"
       "70697420736564207665686963756c61206e6f6e2c20696163756c697320666175636962757320746f72746f72"
       "2e2050726f696e20737573636970697420756c74726963696573206d616c6573756164612e204475697320746f"
       "72746f7220656c69742c2064696374756d2071756973207472697374697175652065752c20756c747269636573"
       "2061742072697375732e204d6f72626920612065737420696d70657264696574206d6920756c6c616d636f7270"
       "657220616c6971756574207375736369706974206e6563206c6f72656d2e2041656e65616e2071756973206c65"
       "6f206d6f6c6c69732c2076756c70757461746520656c6974207661726975732c20636f6e73657175617420656e"
       "696d2e204e756c6c6120756c74726963657320747572706973206a7573746f2c20657420706f73756572652075"
       "726e6120636f6e7365637465747572206e65632e2050726f696e206e6f6e20636f6e76616c6c6973206d657475"
       "732e20446f6e65632074656d706f7220697073756d20696e206d617572697320636f6e67756520736f6c6c6963"
       "69747564696e2e20566573746962756c756d20616e746520697073756d207072696d697320696e206661756369"
       "627573206f726369206c756374757320657420756c74726963657320706f737565726520637562696c69612043"
       "757261653b2053757370656e646973736520636f6e76616c6c69732073656d2076656c206d6173736120666175"
       "63696275732c2065676574206c6163696e6961206c616375732074656d706f722e204e756c6c61207175697320"
       "756c747269636965732070757275732e2050726f696e20617563746f722072686f6e637573206e69626820636f"
       "6e64696d656e74756d206d6f6c6c69732e20416c697175616d20636f6e73657175617420656e696d206174206d"
       "65747573206c75637475732c206120656c656966656e6420707572757320656765737461732e20437572616269"
       "747572206174206e696268206d657475732e204e616d20626962656e64756d2c206e6571756520617420617563"
       "746f72207472697374697175652c206c6f72656d206c696265726f20616c697175657420617263752c206e6f6e"
       "20696e74657264756d2074656c6c7573206c65637475732073697420616d65742065726f732e20437261732072"
       "686f6e6375732c206d65747573206163206f726e617265206375727375732c20646f6c6f72206a7573746f2075"
       "6c747269636573206d657475732c20617420756c6c616d636f7270657220766f6c7574706174"},
      {"zero", integer("0"), "0x80"},
      {"smallint", integer("1"), "0x01"},
      {"smallint2", integer("16"), "0x10"},
      {"smallint3", integer("79"), "0x4f"},
      {"smallint4", integer("127"), "0x7f"},
      {"mediumint1", integer("128"), "0x8180"},
      {"mediumint2", integer("1000"), "0x8203e8"},
      {"mediumint3", integer("100000"), "0x830186a0"},
      {"mediumint4", integer("83729609699884896815286331701780722"),
       "0x8f102030405060708090a0b0c0d0e0f2"},
      {"mediumint5", integer("105315505618206987246253880190783558935785933862974822347068935681"),
       "0x9c0100020003000400050006000700080009000a000b000c000d000e01"},
      {"emptylist", list({}), "0xc0"},
      {"stringlist", list({text("dog"sv), text("god"sv), text("cat"sv)}),
       "0xcc83646f6783676f6483636174"},
      {"multilist", list({text("zw"sv), list({integer("4")}), integer("1")}), "0xc6827a77c10401"},
      {"shortListMax1",
       list({text("asdf"sv), text("qwer"sv), text("zxcv"sv), text("asdf"sv), text("qwer"sv),
             text("zxcv"sv), text("asdf"sv), text("qwer"sv), text("zxcv"sv), text("asdf"sv),
             text("qwer"sv)}),
       "0xf784617364668471776572847a78637684617364668471776572847a78637684617364668471776572847a78"
       "637684617364668471776572"},
      {"longList1",
       list({list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)})}),
       "0xf840cf84617364668471776572847a786376cf84617364668471776572847a786376cf846173646684717765"
       "72847a786376cf84617364668471776572847a786376"},
      {"longList2",
       list({list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)}),
             list({text("asdf"sv), text("qwer"sv), text("zxcv"sv)})}),
       "0xf90200cf84617364668471776572847a786376cf84617364668471776572847a786376cf8461736466847177"
       "6572847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376cf8461736466"
       "8471776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376cf8461"
       "7364668471776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376"
       "cf84617364668471776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a"
       "786376cf84617364668471776572847a786376cf84617364668471776572847a786376cf846173646684717765"
       "72847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376cf846173646684"
       "71776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376cf846173"
       "64668471776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a786376cf"
       "84617364668471776572847a786376cf84617364668471776572847a786376cf84617364668471776572847a78"
       "6376cf84617364668471776572847a786376cf84617364668471776572847a786376cf84617364668471776572"
       "847a786376cf84617364668471776572847a786376"},
      {"listsoflists", list({list({list({}), list({})}), list({})}), "0xc4c2c0c0c0"},
      {"listsoflists2", list({list({}), list({list({})}), list({list({}), list({list({})})})}),
       "0xc7c0c1c0c3c0c1c0"},
      {"dictTest1",
       list({list({text("key1"sv), text("val1"sv)}), list({text("key2"sv), text("val2"sv)}),
             list({text("key3"sv), text("val3"sv)}), list({text("key4"sv), text("val4"sv)})}),
       "0xecca846b6579318476616c31ca846b6579328476616c32ca846b6579338476616c33ca846b6579348476616c"
       "34"},
      {"bigint", bytes_hex("0x010000000000000000000000000000000000000000000000000000000000000000"),
       "0xa1010000000000000000000000000000000000000000000000000000000000000000"},
  };
  return cases;
}

struct InvalidCase {
  const char* name;
  const char* encoded;
};

// RLPTests/invalidRLPTest.json
const std::vector<InvalidCase>& invalid_cases() {
  static const std::vector<InvalidCase> cases = {
      {"int32Overflow", "0xbf0f000000000000021111"},
      {"int32Overflow2", "0xff0f000000000000021111"},
      {"wrongSizeList", "0xf80180"},
      {"wrongSizeList2", "0xf80100"},
      {"incorrectLengthInArray",
       "0xb9002100dc2b275d0f74e8a53e6f4ec61b27f24278820be3f82ea2110e582081b0565df0"},
      {"randomRLP",
       "0xf861f83eb9002100dc2b275d0f74e8a53e6f4ec61b27f24278820be3f82ea2110e582081b0565d"
       "f027b90015002d5ef8325ae4d034df55d4b58d0dfba64d61ddd17be00000b9001a00dae30907045a"
       "2f66fa36f2bb8aa9029cbb0b8a7b3b5c435ab331"},
      {"bytesShouldBeSingleByte00", "0x8100"},
      {"bytesShouldBeSingleByte01", "0x8101"},
      {"bytesShouldBeSingleByte7F", "0x817f"},
      {"leadingZerosInLongLengthArray1",
       "0xb90040000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20212223"
       "2425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"},
      {"leadingZerosInLongLengthArray2", "0xb800"},
      {"leadingZerosInLongLengthList1",
       "0xfb00000040000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021"
       "22232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"},
      {"leadingZerosInLongLengthList2", "0xf800"},
      {"nonOptimalLongLengthArray1", "0xb81000112233445566778899aabbccddeeff"},
      {"nonOptimalLongLengthArray2", "0xb801ff"},
      {"nonOptimalLongLengthList1", "0xf810000102030405060708090a0b0c0d0e0f"},
      {"nonOptimalLongLengthList2", "0xf803112233"},
      {"emptyEncoding", "0x"},
      {"lessThanShortLengthArray1", "0x81"},
      {"lessThanShortLengthArray2",
       "0xa0000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e"},
      {"lessThanShortLengthList1", "0xc5010203"},
      {"lessThanShortLengthList2", "0xe201020304050607"},
      {"lessThanLongLengthArray1", "0xba010000aabbccddeeff"},
      {"lessThanLongLengthArray2", "0xb840ffeeddccbbaa99887766554433221100"},
      {"lessThanLongLengthList1", "0xf90180"},
      {"lessThanLongLengthList2", "0xffffffffffffffffff0001020304050607"},
  };
  return cases;
}

TEST(EvmRlp, EncodesThePublishedVectors) {
  for (const auto& test : valid_cases()) {
    SCOPED_TRACE(test.name);
    EXPECT_EQ(to_hex(encode(test.input)), test.encoded);
  }
}

TEST(EvmRlp, DecodesThePublishedVectorsBack) {
  for (const auto& test : valid_cases()) {
    SCOPED_TRACE(test.name);
    auto decoded = rlp::decode(from_hex(test.encoded).value());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    expect_same(*decoded, test.input);
  }
}

TEST(EvmRlp, RefusesThePublishedInvalidEncodings) {
  for (const auto& test : invalid_cases()) {
    SCOPED_TRACE(test.name);
    const auto decoded = rlp::decode(from_hex(test.encoded).value());
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.error().message.rfind("malformed RLP: ", 0), 0u) << decoded.error().message;
  }
}

TEST(EvmRlp, RefusesTrailingBytesAfterTheItem) {
  const auto decoded = rlp::decode(from_hex("0x83646f6700").value());
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().message, "malformed RLP: trailing bytes after the item");
}

// An empty list inside `depth` lists, each holding the next.
Bytes nested_lists(int depth) {
  Bytes item = rlp::encode_list({});
  for (int i = 0; i < depth; ++i) item = rlp::encode_list(std::vector<Bytes>{item});
  return item;
}

TEST(EvmRlp, RefusesListsNestedBeyondTheDepthLimit) {
  EXPECT_TRUE(rlp::decode(nested_lists(rlp::kDepthMax - 1)).ok());
  const auto refused = rlp::decode(nested_lists(rlp::kDepthMax));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "malformed RLP: lists nested too deeply");
}

TEST(EvmRlp, ReadsCanonicalScalarsOnly) {
  EXPECT_EQ(rlp::scalar(rlp::decode(from_hex("0x820400").value()).value()), U256(1024));
  EXPECT_EQ(rlp::scalar(rlp::decode(from_hex("0x80").value()).value()), U256(0));
  // A leading zero byte is another encoding of 0x0400: refused.
  EXPECT_FALSE(rlp::scalar(rlp::decode(from_hex("0x83000400").value()).value()));
  EXPECT_FALSE(rlp::scalar(rlp::decode(from_hex("0xc0").value()).value()));
}

}  // namespace
}  // namespace payrail::infra::evm
