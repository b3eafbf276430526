# tilelab::cjson (required) and tilelab::criterion (optional, sets CRITERION_FOUND).
find_path(CJSON_INCLUDE_DIR cjson/cJSON.h)
find_library(CJSON_LIBRARY NAMES cjson)
if(NOT CJSON_INCLUDE_DIR OR NOT CJSON_LIBRARY)
  message(FATAL_ERROR "cJSON not found: install libcjson-dev (./tilelab does this for you)")
endif()
add_library(tilelab::cjson UNKNOWN IMPORTED)
set_target_properties(tilelab::cjson PROPERTIES
  IMPORTED_LOCATION ${CJSON_LIBRARY} INTERFACE_INCLUDE_DIRECTORIES ${CJSON_INCLUDE_DIR})

find_path(CRITERION_INCLUDE_DIR criterion/criterion.h)
find_library(CRITERION_LIBRARY NAMES criterion)
if(CRITERION_INCLUDE_DIR AND CRITERION_LIBRARY)
  set(CRITERION_FOUND TRUE)
  add_library(tilelab::criterion UNKNOWN IMPORTED)
  set_target_properties(tilelab::criterion PROPERTIES
    IMPORTED_LOCATION ${CRITERION_LIBRARY} INTERFACE_INCLUDE_DIRECTORIES ${CRITERION_INCLUDE_DIR})
else()
  set(CRITERION_FOUND FALSE)
endif()
