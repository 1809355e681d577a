// The OpenAPI description (schemas/openapi/, assembled as model::openapi_document()) and the
// server agree: every route of api::build_router() is an operation of the document and every
// operation is a route, each operation's `x-scope` is the route's scope (none when the route has
// none) and its `security` matches the route's access, and the Error schema's `code` enum lists
// every code of the error table (schemas/model/common/errors.cc).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/handlers/handlers.h"
#include "schemas/model/common/errors.h"
#include "schemas/model/contract/contracts.h"

namespace payrail {
namespace {

using OperationKey = std::pair<std::string, std::string>;  // {"POST", "/v1/payouts"}

// The HTTP methods an OpenAPI 3.1 Path Item can hold.
constexpr const char* kOpenApiMethods[] = {"get",     "put",  "post",  "delete",
                                           "options", "head", "patch", "trace"};

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string describe(const OperationKey& key) {
  return key.first + " " + key.second;
}

class OpenApiDocument : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto text = model::openapi_document();
    document_.Parse(text.data(), text.size());
    ASSERT_FALSE(document_.HasParseError())
        << "the assembled OpenAPI description is not valid JSON: "
        << rapidjson::GetParseError_En(document_.GetParseError()) << " at byte "
        << document_.GetErrorOffset();
    ASSERT_TRUE(document_.IsObject());
    ASSERT_TRUE(document_.HasMember("paths") && document_["paths"].IsObject());
    for (const auto& route : router_.routes()) {
      const OperationKey key{route.method, route.pattern};
      ASSERT_TRUE(routes_.emplace(key, &route).second)
          << describe(key) << " is registered twice in api::build_router()";
    }
    for (auto path = document_["paths"].MemberBegin(); path != document_["paths"].MemberEnd();
         ++path) {
      ASSERT_TRUE(path->value.IsObject()) << path->name.GetString();
      for (const char* method : kOpenApiMethods) {
        if (!path->value.HasMember(method)) continue;
        const auto& operation = path->value[method];
        ASSERT_TRUE(operation.IsObject()) << method << " " << path->name.GetString();
        operations_.emplace(OperationKey{upper(method), path->name.GetString()}, &operation);
      }
    }
  }

  // The error schema's `error` object, or nullptr.
  const rapidjson::Value* error_object_schema() const {
    if (!document_.HasMember("components")) return nullptr;
    const auto& components = document_["components"];
    if (!components.HasMember("schemas") || !components["schemas"].HasMember("Error")) {
      return nullptr;
    }
    const auto& error = components["schemas"]["Error"];
    if (!error.HasMember("properties") || !error["properties"].HasMember("error")) return nullptr;
    return &error["properties"]["error"];
  }

  static std::set<std::string> enum_values(const rapidjson::Value& schema) {
    std::set<std::string> values;
    if (!schema.IsObject() || !schema.HasMember("enum") || !schema["enum"].IsArray()) {
      return values;
    }
    for (const auto& value : schema["enum"].GetArray()) {
      if (value.IsString()) values.insert(value.GetString());
    }
    return values;
  }

  // Every entry of the error table (schemas/model/common/errors.h).
  static std::vector<model::ErrorSpec> error_table() {
    std::vector<model::ErrorSpec> table;
    for (std::size_t code = 0; code < model::error_code_count(); ++code) {
      table.push_back(model::error_spec(static_cast<model::ErrorCode>(code)));
    }
    return table;
  }

  rapidjson::Document document_;
  api::Router router_ = api::build_router();
  std::map<OperationKey, const api::Route*> routes_;
  std::map<OperationKey, const rapidjson::Value*> operations_;
};

TEST_F(OpenApiDocument, IsOpenApi31) {
  ASSERT_TRUE(document_.HasMember("openapi") && document_["openapi"].IsString());
  EXPECT_EQ(std::string(document_["openapi"].GetString()), "3.1.0");
  ASSERT_TRUE(document_.HasMember("info") && document_["info"].IsObject());
  ASSERT_TRUE(document_["info"].HasMember("version"));
  EXPECT_EQ(std::string(document_["info"]["version"].GetString()), "1.0.0");
}

TEST_F(OpenApiDocument, EveryRouteIsDocumented) {
  ASSERT_FALSE(routes_.empty());
  for (const auto& [key, route] : routes_) {
    EXPECT_TRUE(operations_.contains(key))
        << describe(key)
        << " is a route of the server but not an operation of the OpenAPI description";
  }
}

TEST_F(OpenApiDocument, EveryOperationIsARoute) {
  for (const auto& [key, operation] : operations_) {
    EXPECT_TRUE(routes_.contains(key))
        << describe(key) << " is in the OpenAPI description but the server has no such route";
  }
}

TEST_F(OpenApiDocument, ScopesMatchTheRouteTable) {
  for (const auto& [key, route] : routes_) {
    const auto found = operations_.find(key);
    if (found == operations_.end()) continue;  // reported by EveryRouteIsDocumented
    const auto& operation = *found->second;
    if (route->scope.empty()) {
      EXPECT_FALSE(operation.HasMember("x-scope"))
          << describe(key) << " has no scope in the route table but x-scope in the document";
      continue;
    }
    ASSERT_TRUE(operation.HasMember("x-scope") && operation["x-scope"].IsString())
        << describe(key) << " needs x-scope: " << route->scope;
    EXPECT_EQ(std::string(operation["x-scope"].GetString()), route->scope) << describe(key);
  }
}

TEST_F(OpenApiDocument, SecurityMatchesTheRouteAccess) {
  const std::set<std::string> api_key_schemes{"ApiKey", "ApiKeyBearer"};
  const std::set<std::string> session_schemes{"IdentitySession"};
  for (const auto& [key, route] : routes_) {
    const auto found = operations_.find(key);
    if (found == operations_.end()) continue;
    const auto& operation = *found->second;
    ASSERT_TRUE(operation.HasMember("security") && operation["security"].IsArray())
        << describe(key) << " must state its security";
    std::set<std::string> schemes;
    for (const auto& requirement : operation["security"].GetArray()) {
      ASSERT_TRUE(requirement.IsObject()) << describe(key);
      for (auto scheme = requirement.MemberBegin(); scheme != requirement.MemberEnd(); ++scheme) {
        const std::string name = scheme->name.GetString();
        schemes.insert(name);
        // The roles of an API key requirement are the scope the route checks.
        if (api_key_schemes.contains(name) && !route->scope.empty()) {
          ASSERT_TRUE(scheme->value.IsArray()) << describe(key);
          ASSERT_EQ(scheme->value.Size(), 1u) << describe(key) << " " << name;
          EXPECT_EQ(std::string(scheme->value[0].GetString()), route->scope)
              << describe(key) << " " << name;
        }
      }
    }
    std::set<std::string> expected;
    switch (route->access) {
      case api::Access::open:
        break;
      case api::Access::api_key:
        expected = api_key_schemes;
        break;
      case api::Access::session:
        expected = session_schemes;
        break;
      case api::Access::api_key_or_session:
        expected = api_key_schemes;
        expected.insert(session_schemes.begin(), session_schemes.end());
        break;
    }
    EXPECT_EQ(schemes, expected) << describe(key) << ": security does not match the route's access";
  }
}

TEST_F(OpenApiDocument, OperationsAreComplete) {
  std::set<std::string> operation_ids;
  for (const auto& [key, operation] : operations_) {
    for (const char* member : {"operationId", "summary", "description"}) {
      EXPECT_TRUE(operation->HasMember(member) && (*operation)[member].IsString())
          << describe(key) << " lacks " << member;
    }
    if (operation->HasMember("operationId")) {
      EXPECT_TRUE(operation_ids.insert((*operation)["operationId"].GetString()).second)
          << describe(key) << ": duplicate operationId";
    }
    ASSERT_TRUE(operation->HasMember("responses") && (*operation)["responses"].IsObject())
        << describe(key);
    const auto& responses = (*operation)["responses"];
    const auto route = routes_.find(key);
    if (route == routes_.end()) continue;
    // What the pipeline itself answers (api/pipeline.cc, api/http/server.cc).
    std::vector<std::string> statuses{"400", "408", "413", "414", "415", "431", "500", "503"};
    if (route->second->access != api::Access::open) {
      statuses.insert(statuses.end(), {"401", "403", "429"});
    }
    for (const auto& status : statuses) {
      EXPECT_TRUE(responses.HasMember(status.c_str()))
          << describe(key) << " does not document the " << status << " response";
    }
  }
}

TEST_F(OpenApiDocument, ErrorCodeEnumListsEveryErrorCode) {
  const auto* error = error_object_schema();
  ASSERT_NE(error, nullptr) << "components.schemas.Error.properties.error is missing";
  ASSERT_TRUE(error->HasMember("properties"));
  const auto& properties = (*error)["properties"];
  ASSERT_TRUE(properties.HasMember("code") && properties.HasMember("type"));
  const auto codes = enum_values(properties["code"]);
  const auto types = enum_values(properties["type"]);
  std::set<std::string> table_codes;
  for (const auto& spec : error_table()) {
    const std::string wire_code(spec.wire_code);
    table_codes.insert(wire_code);
    EXPECT_TRUE(codes.contains(wire_code))
        << "error code " << wire_code << " (HTTP " << spec.http_status
        << ") is missing from the Error schema's code enum";
    EXPECT_TRUE(types.contains(std::string(spec.type)))
        << "error type " << spec.type << " is missing from the Error schema's type enum";
  }
  for (const auto& code : codes) {
    EXPECT_TRUE(table_codes.contains(code))
        << "the Error schema lists " << code
        << ", which schemas/model/common/errors.cc does not have";
  }
}

TEST_F(OpenApiDocument, PathParametersAreDeclared) {
  for (const auto& [key, route] : routes_) {
    const auto& path = document_["paths"];
    if (!path.HasMember(key.second.c_str())) continue;
    const auto& item = path[key.second.c_str()];
    std::set<std::string> declared;
    auto collect = [&](const rapidjson::Value& holder) {
      if (!holder.HasMember("parameters")) return;
      for (const auto& parameter : holder["parameters"].GetArray()) {
        if (parameter.HasMember("in") && std::string(parameter["in"].GetString()) == "path") {
          declared.insert(parameter["name"].GetString());
        }
      }
    };
    collect(item);
    const auto method = lower(key.first);
    if (item.HasMember(method.c_str())) collect(item[method.c_str()]);
    std::set<std::string> expected;
    for (auto open = key.second.find('{'); open != std::string::npos;
         open = key.second.find('{', open + 1)) {
      expected.insert(key.second.substr(open + 1, key.second.find('}', open) - open - 1));
    }
    EXPECT_EQ(declared, expected) << describe(key);
  }
}

}  // namespace
}  // namespace payrail
