// The OpenAPI description is assembled from its parts: objects merge, arrays concatenate, and a
// member defined in two parts is refused rather than silently overwritten.
#include <gtest/gtest.h>

#include "schemas/model/contract/contracts.h"
#include "schemas/model/contract/openapi.h"

namespace payrail::model {
namespace {

TEST(OpenApiAssembly, TheShippedPartsAssemble) {
  ASSERT_GE(openapi_parts().size(), 2u);
  auto assembled = assemble_openapi(openapi_parts());
  ASSERT_TRUE(assembled.ok()) << assembled.error().message;
  EXPECT_EQ(*assembled, std::string(openapi_document()));
}

TEST(OpenApiAssembly, ObjectsMergeAndArraysConcatenate) {
  const EmbeddedFile parts[] = {
      {"base.json",
       R"({"tags": [{"name": "A"}], "paths": {}, "components": {"schemas": {"X": {}}}})"},
      {"a.json", R"({"tags": [{"name": "B"}], "paths": {"/a": {"get": {}}}})"},
      {"b.json", R"({"paths": {"/b": {}}, "components": {"schemas": {"Y": {"type": "string"}}}})"}};
  auto assembled = assemble_openapi(parts);
  ASSERT_TRUE(assembled.ok()) << assembled.error().message;
  EXPECT_EQ(*assembled, R"({"tags":[{"name":"A"},{"name":"B"}],"paths":{"/a":{"get":{}},"/b":{}},)"
                        R"("components":{"schemas":{"X":{},"Y":{"type":"string"}}}})");
}

TEST(OpenApiAssembly, AMemberDefinedTwiceIsRefused) {
  const EmbeddedFile parts[] = {
      {"base.json", R"({"components": {"schemas": {"X": {"type": "string"}}}})"},
      {"a.json", R"({"components": {"schemas": {"X": {"type": 1}}}})"}};
  auto assembled = assemble_openapi(parts);
  ASSERT_FALSE(assembled.ok());
  EXPECT_NE(assembled.error().message.find("/components/schemas/X/type"), std::string::npos)
      << assembled.error().message;
}

TEST(OpenApiAssembly, APartThatIsNotJsonIsRefused) {
  const EmbeddedFile parts[] = {{"base.json", "{}"}, {"a.json", "{\"paths\": "}};
  auto assembled = assemble_openapi(parts);
  ASSERT_FALSE(assembled.ok());
  EXPECT_NE(assembled.error().message.find("a.json"), std::string::npos);
}

}  // namespace
}  // namespace payrail::model
