/**
 * Locates the first JSON syntax error in a text. `JSON.parse` only sometimes
 * says where it failed, and the wording differs between V8 versions; a rules
 * author needs a line and column. Only runs after `JSON.parse` has failed.
 */
// @ts-nocheck


/** Where and why a text is not JSON; `offset` counts UTF-16 code units. */function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
export interface JsonSyntaxError {
  readonly offset: number;
  readonly reason: string;
}
const NUMBER = stryMutAct_9fa48("1287") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[^0-9]+)?/y : stryMutAct_9fa48("1286") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9])?/y : stryMutAct_9fa48("1285") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][^+-]?[0-9]+)?/y : stryMutAct_9fa48("1284") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-][0-9]+)?/y : stryMutAct_9fa48("1283") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[^eE][+-]?[0-9]+)?/y : stryMutAct_9fa48("1282") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)/y : stryMutAct_9fa48("1281") ? /-?(?:0|[1-9][0-9]*)(?:\.[^0-9]+)?(?:[eE][+-]?[0-9]+)?/y : stryMutAct_9fa48("1280") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9])?(?:[eE][+-]?[0-9]+)?/y : stryMutAct_9fa48("1279") ? /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y : stryMutAct_9fa48("1278") ? /-?(?:0|[1-9][^0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y : stryMutAct_9fa48("1277") ? /-?(?:0|[1-9][0-9])(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y : stryMutAct_9fa48("1276") ? /-?(?:0|[^1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y : stryMutAct_9fa48("1275") ? /-(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y : (stryCov_9fa48("1275", "1276", "1277", "1278", "1279", "1280", "1281", "1282", "1283", "1284", "1285", "1286", "1287"), /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y);
const ESCAPES = stryMutAct_9fa48("1288") ? "" : (stryCov_9fa48("1288"), '"\\/bfnrt');
const HEX4 = stryMutAct_9fa48("1292") ? /^[^0-9a-fA-F]{4}$/ : stryMutAct_9fa48("1291") ? /^[0-9a-fA-F]$/ : stryMutAct_9fa48("1290") ? /^[0-9a-fA-F]{4}/ : stryMutAct_9fa48("1289") ? /[0-9a-fA-F]{4}$/ : (stryCov_9fa48("1289", "1290", "1291", "1292"), /^[0-9a-fA-F]{4}$/);

/**
 * The first syntax error in `text`, or undefined when it is valid JSON.
 * Iterative, so absurdly deep nesting cannot overflow the stack.
 *
 * @example
 * findJsonSyntaxError('{"a": 1,}'); // { offset: 8, reason: "trailing comma before '}'" }
 * findJsonSyntaxError('{"a": 1}');  // undefined
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  if (stryMutAct_9fa48("1293")) {
    {}
  } else {
    stryCov_9fa48("1293");
    const closers: string[] = stryMutAct_9fa48("1294") ? ["Stryker was here"] : (stryCov_9fa48("1294"), []);
    let i = 0;
    let state: "value" | "key" | "after" = stryMutAct_9fa48("1295") ? "" : (stryCov_9fa48("1295"), "value");
    let afterComma = stryMutAct_9fa48("1296") ? true : (stryCov_9fa48("1296"), false);
    const found = stryMutAct_9fa48("1297") ? () => undefined : (stryCov_9fa48("1297"), (() => {
      const found = (c: string | undefined) => (stryMutAct_9fa48("1300") ? c !== undefined : stryMutAct_9fa48("1299") ? false : stryMutAct_9fa48("1298") ? true : (stryCov_9fa48("1298", "1299", "1300"), c === undefined)) ? stryMutAct_9fa48("1301") ? "" : (stryCov_9fa48("1301"), "end of input") : JSON.stringify(c);
      return found;
    })());
    const fail = stryMutAct_9fa48("1302") ? () => undefined : (stryCov_9fa48("1302"), (() => {
      const fail = (reason: string, offset = i): JsonSyntaxError => stryMutAct_9fa48("1303") ? {} : (stryCov_9fa48("1303"), {
        offset,
        reason
      });
      return fail;
    })());
    if (stryMutAct_9fa48("1304")) {
      for (; false;) {
        while (i < text.length && " \t\n\r".includes(text[i])) i++;
        const c = text[i] as string | undefined;
        if (state === "key") {
          if (c === "}" && afterComma) return fail("trailing comma before '}'");
          if (c !== '"') return fail(`expected a double-quoted property name, found ${found(c)}`);
          const bad = scanString(text, i);
          if (typeof bad === "object") return bad;
          i = bad;
          while (i < text.length && " \t\n\r".includes(text[i])) i++;
          if (text[i] !== ":") return fail(`expected ':' after property name, found ${found(text[i])}`);
          i++;
          state = "value";
          afterComma = false;
        } else if (state === "value") {
          if (c === "]" && afterComma) return fail("trailing comma before ']'");
          if (c === "{" || c === "[") {
            closers.push(c === "{" ? "}" : "]");
            i++;
            while (i < text.length && " \t\n\r".includes(text[i])) i++;
            if (text[i] === closers[closers.length - 1]) {
              closers.pop();
              i++;
              state = "after";
            } else {
              state = c === "{" ? "key" : "value";
            }
            continue;
          }
          const end = scanScalar(text, i);
          if (typeof end === "object") return end;
          if (end === i) return fail(`expected a value, found ${found(c)}`);
          i = end;
          state = "after";
          afterComma = false;
        } else {
          const closer = closers[closers.length - 1];
          if (closer === undefined) return c === undefined ? undefined : fail(`unexpected ${found(c)} after the end of the JSON value`);
          if (c === ",") {
            i++;
            state = closer === "}" ? "key" : "value";
            afterComma = true;
          } else if (c === closer) {
            closers.pop();
            i++;
          } else {
            return fail(`expected ',' or '${closer}', found ${found(c)}`);
          }
        }
      }
    } else {
      stryCov_9fa48("1304");
      for (;;) {
        if (stryMutAct_9fa48("1305")) {
          {}
        } else {
          stryCov_9fa48("1305");
          while (stryMutAct_9fa48("1307") ? i < text.length || " \t\n\r".includes(text[i]) : stryMutAct_9fa48("1306") ? false : (stryCov_9fa48("1306", "1307"), (stryMutAct_9fa48("1310") ? i >= text.length : stryMutAct_9fa48("1309") ? i <= text.length : stryMutAct_9fa48("1308") ? true : (stryCov_9fa48("1308", "1309", "1310"), i < text.length)) && (stryMutAct_9fa48("1311") ? "" : (stryCov_9fa48("1311"), " \t\n\r")).includes(text[i]))) stryMutAct_9fa48("1312") ? i-- : (stryCov_9fa48("1312"), i++);
          const c = text[i] as string | undefined;
          if (stryMutAct_9fa48("1315") ? state !== "key" : stryMutAct_9fa48("1314") ? false : stryMutAct_9fa48("1313") ? true : (stryCov_9fa48("1313", "1314", "1315"), state === (stryMutAct_9fa48("1316") ? "" : (stryCov_9fa48("1316"), "key")))) {
            if (stryMutAct_9fa48("1317")) {
              {}
            } else {
              stryCov_9fa48("1317");
              if (stryMutAct_9fa48("1320") ? c === "}" || afterComma : stryMutAct_9fa48("1319") ? false : stryMutAct_9fa48("1318") ? true : (stryCov_9fa48("1318", "1319", "1320"), (stryMutAct_9fa48("1322") ? c !== "}" : stryMutAct_9fa48("1321") ? true : (stryCov_9fa48("1321", "1322"), c === (stryMutAct_9fa48("1323") ? "" : (stryCov_9fa48("1323"), "}")))) && afterComma)) return fail(stryMutAct_9fa48("1324") ? "" : (stryCov_9fa48("1324"), "trailing comma before '}'"));
              if (stryMutAct_9fa48("1327") ? c === '"' : stryMutAct_9fa48("1326") ? false : stryMutAct_9fa48("1325") ? true : (stryCov_9fa48("1325", "1326", "1327"), c !== (stryMutAct_9fa48("1328") ? "" : (stryCov_9fa48("1328"), '"')))) return fail(stryMutAct_9fa48("1329") ? `` : (stryCov_9fa48("1329"), `expected a double-quoted property name, found ${found(c)}`));
              const bad = scanString(text, i);
              if (stryMutAct_9fa48("1332") ? typeof bad !== "object" : stryMutAct_9fa48("1331") ? false : stryMutAct_9fa48("1330") ? true : (stryCov_9fa48("1330", "1331", "1332"), typeof bad === (stryMutAct_9fa48("1333") ? "" : (stryCov_9fa48("1333"), "object")))) return bad;
              i = bad;
              while (stryMutAct_9fa48("1335") ? i < text.length || " \t\n\r".includes(text[i]) : stryMutAct_9fa48("1334") ? false : (stryCov_9fa48("1334", "1335"), (stryMutAct_9fa48("1338") ? i >= text.length : stryMutAct_9fa48("1337") ? i <= text.length : stryMutAct_9fa48("1336") ? true : (stryCov_9fa48("1336", "1337", "1338"), i < text.length)) && (stryMutAct_9fa48("1339") ? "" : (stryCov_9fa48("1339"), " \t\n\r")).includes(text[i]))) stryMutAct_9fa48("1340") ? i-- : (stryCov_9fa48("1340"), i++);
              if (stryMutAct_9fa48("1343") ? text[i] === ":" : stryMutAct_9fa48("1342") ? false : stryMutAct_9fa48("1341") ? true : (stryCov_9fa48("1341", "1342", "1343"), text[i] !== (stryMutAct_9fa48("1344") ? "" : (stryCov_9fa48("1344"), ":")))) return fail(stryMutAct_9fa48("1345") ? `` : (stryCov_9fa48("1345"), `expected ':' after property name, found ${found(text[i])}`));
              stryMutAct_9fa48("1346") ? i-- : (stryCov_9fa48("1346"), i++);
              state = stryMutAct_9fa48("1347") ? "" : (stryCov_9fa48("1347"), "value");
              afterComma = stryMutAct_9fa48("1348") ? true : (stryCov_9fa48("1348"), false);
            }
          } else if (stryMutAct_9fa48("1351") ? state !== "value" : stryMutAct_9fa48("1350") ? false : stryMutAct_9fa48("1349") ? true : (stryCov_9fa48("1349", "1350", "1351"), state === (stryMutAct_9fa48("1352") ? "" : (stryCov_9fa48("1352"), "value")))) {
            if (stryMutAct_9fa48("1353")) {
              {}
            } else {
              stryCov_9fa48("1353");
              if (stryMutAct_9fa48("1356") ? c === "]" || afterComma : stryMutAct_9fa48("1355") ? false : stryMutAct_9fa48("1354") ? true : (stryCov_9fa48("1354", "1355", "1356"), (stryMutAct_9fa48("1358") ? c !== "]" : stryMutAct_9fa48("1357") ? true : (stryCov_9fa48("1357", "1358"), c === (stryMutAct_9fa48("1359") ? "" : (stryCov_9fa48("1359"), "]")))) && afterComma)) return fail(stryMutAct_9fa48("1360") ? "" : (stryCov_9fa48("1360"), "trailing comma before ']'"));
              if (stryMutAct_9fa48("1363") ? c === "{" && c === "[" : stryMutAct_9fa48("1362") ? false : stryMutAct_9fa48("1361") ? true : (stryCov_9fa48("1361", "1362", "1363"), (stryMutAct_9fa48("1365") ? c !== "{" : stryMutAct_9fa48("1364") ? false : (stryCov_9fa48("1364", "1365"), c === (stryMutAct_9fa48("1366") ? "" : (stryCov_9fa48("1366"), "{")))) || (stryMutAct_9fa48("1368") ? c !== "[" : stryMutAct_9fa48("1367") ? false : (stryCov_9fa48("1367", "1368"), c === (stryMutAct_9fa48("1369") ? "" : (stryCov_9fa48("1369"), "[")))))) {
                if (stryMutAct_9fa48("1370")) {
                  {}
                } else {
                  stryCov_9fa48("1370");
                  closers.push((stryMutAct_9fa48("1374") ? c !== "{" : stryMutAct_9fa48("1373") ? false : stryMutAct_9fa48("1372") ? true : (stryCov_9fa48("1372", "1373", "1374"), c === (stryMutAct_9fa48("1375") ? "" : (stryCov_9fa48("1375"), "{")))) ? stryMutAct_9fa48("1376") ? "" : (stryCov_9fa48("1376"), "}") : stryMutAct_9fa48("1377") ? "" : (stryCov_9fa48("1377"), "]"));
                  stryMutAct_9fa48("1378") ? i-- : (stryCov_9fa48("1378"), i++);
                  while (stryMutAct_9fa48("1380") ? i < text.length || " \t\n\r".includes(text[i]) : stryMutAct_9fa48("1379") ? false : (stryCov_9fa48("1379", "1380"), (stryMutAct_9fa48("1383") ? i >= text.length : stryMutAct_9fa48("1382") ? i <= text.length : stryMutAct_9fa48("1381") ? true : (stryCov_9fa48("1381", "1382", "1383"), i < text.length)) && (stryMutAct_9fa48("1384") ? "" : (stryCov_9fa48("1384"), " \t\n\r")).includes(text[i]))) stryMutAct_9fa48("1385") ? i-- : (stryCov_9fa48("1385"), i++);
                  if (stryMutAct_9fa48("1388") ? text[i] !== closers[closers.length - 1] : stryMutAct_9fa48("1387") ? false : stryMutAct_9fa48("1386") ? true : (stryCov_9fa48("1386", "1387", "1388"), text[i] === closers[stryMutAct_9fa48("1389") ? closers.length + 1 : (stryCov_9fa48("1389"), closers.length - 1)])) {
                    if (stryMutAct_9fa48("1390")) {
                      {}
                    } else {
                      stryCov_9fa48("1390");
                      if (stryMutAct_9fa48("1391")) {
                        ;
                      } else {
                        stryCov_9fa48("1391");
                        closers.pop();
                      }
                      stryMutAct_9fa48("1392") ? i-- : (stryCov_9fa48("1392"), i++);
                      state = stryMutAct_9fa48("1393") ? "" : (stryCov_9fa48("1393"), "after");
                    }
                  } else {
                    if (stryMutAct_9fa48("1394")) {
                      {}
                    } else {
                      stryCov_9fa48("1394");
                      state = (stryMutAct_9fa48("1397") ? c !== "{" : stryMutAct_9fa48("1396") ? false : stryMutAct_9fa48("1395") ? true : (stryCov_9fa48("1395", "1396", "1397"), c === (stryMutAct_9fa48("1398") ? "" : (stryCov_9fa48("1398"), "{")))) ? stryMutAct_9fa48("1399") ? "" : (stryCov_9fa48("1399"), "key") : stryMutAct_9fa48("1400") ? "" : (stryCov_9fa48("1400"), "value");
                    }
                  }
                  continue;
                }
              }
              const end = scanScalar(text, i);
              if (stryMutAct_9fa48("1403") ? typeof end !== "object" : stryMutAct_9fa48("1402") ? false : stryMutAct_9fa48("1401") ? true : (stryCov_9fa48("1401", "1402", "1403"), typeof end === (stryMutAct_9fa48("1404") ? "" : (stryCov_9fa48("1404"), "object")))) return end;
              if (stryMutAct_9fa48("1407") ? end !== i : stryMutAct_9fa48("1406") ? false : stryMutAct_9fa48("1405") ? true : (stryCov_9fa48("1405", "1406", "1407"), end === i)) return fail(stryMutAct_9fa48("1408") ? `` : (stryCov_9fa48("1408"), `expected a value, found ${found(c)}`));
              i = end;
              state = stryMutAct_9fa48("1409") ? "" : (stryCov_9fa48("1409"), "after");
              afterComma = stryMutAct_9fa48("1410") ? true : (stryCov_9fa48("1410"), false);
            }
          } else {
            if (stryMutAct_9fa48("1411")) {
              {}
            } else {
              stryCov_9fa48("1411");
              const closer = closers[stryMutAct_9fa48("1412") ? closers.length + 1 : (stryCov_9fa48("1412"), closers.length - 1)];
              if (stryMutAct_9fa48("1415") ? closer !== undefined : stryMutAct_9fa48("1414") ? false : stryMutAct_9fa48("1413") ? true : (stryCov_9fa48("1413", "1414", "1415"), closer === undefined)) return (stryMutAct_9fa48("1418") ? c !== undefined : stryMutAct_9fa48("1417") ? false : stryMutAct_9fa48("1416") ? true : (stryCov_9fa48("1416", "1417", "1418"), c === undefined)) ? undefined : fail(stryMutAct_9fa48("1419") ? `` : (stryCov_9fa48("1419"), `unexpected ${found(c)} after the end of the JSON value`));
              if (stryMutAct_9fa48("1422") ? c !== "," : stryMutAct_9fa48("1421") ? false : stryMutAct_9fa48("1420") ? true : (stryCov_9fa48("1420", "1421", "1422"), c === (stryMutAct_9fa48("1423") ? "" : (stryCov_9fa48("1423"), ",")))) {
                if (stryMutAct_9fa48("1424")) {
                  {}
                } else {
                  stryCov_9fa48("1424");
                  stryMutAct_9fa48("1425") ? i-- : (stryCov_9fa48("1425"), i++);
                  state = (stryMutAct_9fa48("1428") ? closer !== "}" : stryMutAct_9fa48("1427") ? false : stryMutAct_9fa48("1426") ? true : (stryCov_9fa48("1426", "1427", "1428"), closer === (stryMutAct_9fa48("1429") ? "" : (stryCov_9fa48("1429"), "}")))) ? stryMutAct_9fa48("1430") ? "" : (stryCov_9fa48("1430"), "key") : stryMutAct_9fa48("1431") ? "" : (stryCov_9fa48("1431"), "value");
                  afterComma = stryMutAct_9fa48("1432") ? false : (stryCov_9fa48("1432"), true);
                }
              } else if (stryMutAct_9fa48("1435") ? c !== closer : stryMutAct_9fa48("1434") ? false : stryMutAct_9fa48("1433") ? true : (stryCov_9fa48("1433", "1434", "1435"), c === closer)) {
                if (stryMutAct_9fa48("1436")) {
                  {}
                } else {
                  stryCov_9fa48("1436");
                  if (stryMutAct_9fa48("1437")) {
                    ;
                  } else {
                    stryCov_9fa48("1437");
                    closers.pop();
                  }
                  stryMutAct_9fa48("1438") ? i-- : (stryCov_9fa48("1438"), i++);
                }
              } else {
                if (stryMutAct_9fa48("1439")) {
                  {}
                } else {
                  stryCov_9fa48("1439");
                  return fail(stryMutAct_9fa48("1440") ? `` : (stryCov_9fa48("1440"), `expected ',' or '${closer}', found ${found(c)}`));
                }
              }
            }
          }
        }
      }
    }
  }
}

// Returns the offset after a string, number or literal at `i` (i itself if none starts there).
function scanScalar(text: string, i: number): number | JsonSyntaxError {
  if (stryMutAct_9fa48("1441")) {
    {}
  } else {
    stryCov_9fa48("1441");
    if (stryMutAct_9fa48("1444") ? text[i] !== '"' : stryMutAct_9fa48("1443") ? false : stryMutAct_9fa48("1442") ? true : (stryCov_9fa48("1442", "1443", "1444"), text[i] === (stryMutAct_9fa48("1445") ? "" : (stryCov_9fa48("1445"), '"')))) return scanString(text, i);
    for (const literal of stryMutAct_9fa48("1446") ? [] : (stryCov_9fa48("1446"), [stryMutAct_9fa48("1447") ? "" : (stryCov_9fa48("1447"), "true"), stryMutAct_9fa48("1448") ? "" : (stryCov_9fa48("1448"), "false"), stryMutAct_9fa48("1449") ? "" : (stryCov_9fa48("1449"), "null")])) {
      if (stryMutAct_9fa48("1450")) {
        {}
      } else {
        stryCov_9fa48("1450");
        if (stryMutAct_9fa48("1453") ? text.endsWith(literal, i) : stryMutAct_9fa48("1452") ? false : stryMutAct_9fa48("1451") ? true : (stryCov_9fa48("1451", "1452", "1453"), text.startsWith(literal, i))) return stryMutAct_9fa48("1454") ? i - literal.length : (stryCov_9fa48("1454"), i + literal.length);
      }
    }
    NUMBER.lastIndex = i;
    return NUMBER.test(text) ? NUMBER.lastIndex : i;
  }
}
function scanString(text: string, start: number): number | JsonSyntaxError {
  if (stryMutAct_9fa48("1455")) {
    {}
  } else {
    stryCov_9fa48("1455");
    let i = stryMutAct_9fa48("1456") ? start - 1 : (stryCov_9fa48("1456"), start + 1);
    while (stryMutAct_9fa48("1459") ? i >= text.length : stryMutAct_9fa48("1458") ? i <= text.length : stryMutAct_9fa48("1457") ? false : (stryCov_9fa48("1457", "1458", "1459"), i < text.length)) {
      if (stryMutAct_9fa48("1460")) {
        {}
      } else {
        stryCov_9fa48("1460");
        const c = text[i];
        if (stryMutAct_9fa48("1463") ? c !== '"' : stryMutAct_9fa48("1462") ? false : stryMutAct_9fa48("1461") ? true : (stryCov_9fa48("1461", "1462", "1463"), c === (stryMutAct_9fa48("1464") ? "" : (stryCov_9fa48("1464"), '"')))) return stryMutAct_9fa48("1465") ? i - 1 : (stryCov_9fa48("1465"), i + 1);
        if (stryMutAct_9fa48("1469") ? c >= " " : stryMutAct_9fa48("1468") ? c <= " " : stryMutAct_9fa48("1467") ? false : stryMutAct_9fa48("1466") ? true : (stryCov_9fa48("1466", "1467", "1468", "1469"), c < (stryMutAct_9fa48("1470") ? "" : (stryCov_9fa48("1470"), " ")))) return stryMutAct_9fa48("1471") ? {} : (stryCov_9fa48("1471"), {
          offset: i,
          reason: stryMutAct_9fa48("1472") ? "" : (stryCov_9fa48("1472"), "control character in string (write it as an escape such as \\n)")
        });
        if (stryMutAct_9fa48("1475") ? c !== "\\" : stryMutAct_9fa48("1474") ? false : stryMutAct_9fa48("1473") ? true : (stryCov_9fa48("1473", "1474", "1475"), c === (stryMutAct_9fa48("1476") ? "" : (stryCov_9fa48("1476"), "\\")))) {
          if (stryMutAct_9fa48("1477")) {
            {}
          } else {
            stryCov_9fa48("1477");
            const e = text[stryMutAct_9fa48("1478") ? i - 1 : (stryCov_9fa48("1478"), i + 1)];
            if (stryMutAct_9fa48("1481") ? e !== "u" : stryMutAct_9fa48("1480") ? false : stryMutAct_9fa48("1479") ? true : (stryCov_9fa48("1479", "1480", "1481"), e === (stryMutAct_9fa48("1482") ? "" : (stryCov_9fa48("1482"), "u")))) {
              if (stryMutAct_9fa48("1483")) {
                {}
              } else {
                stryCov_9fa48("1483");
                if (stryMutAct_9fa48("1486") ? false : stryMutAct_9fa48("1485") ? true : stryMutAct_9fa48("1484") ? HEX4.test(text.slice(i + 2, i + 6)) : (stryCov_9fa48("1484", "1485", "1486"), !HEX4.test(stryMutAct_9fa48("1487") ? text : (stryCov_9fa48("1487"), text.slice(stryMutAct_9fa48("1488") ? i - 2 : (stryCov_9fa48("1488"), i + 2), stryMutAct_9fa48("1489") ? i - 6 : (stryCov_9fa48("1489"), i + 6)))))) return stryMutAct_9fa48("1490") ? {} : (stryCov_9fa48("1490"), {
                  offset: i,
                  reason: stryMutAct_9fa48("1491") ? "" : (stryCov_9fa48("1491"), "invalid \\u escape in string")
                });
                stryMutAct_9fa48("1492") ? i -= 6 : (stryCov_9fa48("1492"), i += 6);
                continue;
              }
            }
            if (stryMutAct_9fa48("1495") ? e === undefined && !ESCAPES.includes(e) : stryMutAct_9fa48("1494") ? false : stryMutAct_9fa48("1493") ? true : (stryCov_9fa48("1493", "1494", "1495"), (stryMutAct_9fa48("1497") ? e !== undefined : stryMutAct_9fa48("1496") ? false : (stryCov_9fa48("1496", "1497"), e === undefined)) || (stryMutAct_9fa48("1498") ? ESCAPES.includes(e) : (stryCov_9fa48("1498"), !ESCAPES.includes(e))))) return stryMutAct_9fa48("1499") ? {} : (stryCov_9fa48("1499"), {
              offset: i,
              reason: stryMutAct_9fa48("1500") ? "" : (stryCov_9fa48("1500"), "invalid escape in string")
            });
            stryMutAct_9fa48("1501") ? i -= 2 : (stryCov_9fa48("1501"), i += 2);
            continue;
          }
        }
        stryMutAct_9fa48("1502") ? i-- : (stryCov_9fa48("1502"), i++);
      }
    }
    return stryMutAct_9fa48("1503") ? {} : (stryCov_9fa48("1503"), {
      offset: start,
      reason: stryMutAct_9fa48("1504") ? "" : (stryCov_9fa48("1504"), "unterminated string")
    });
  }
}

/**
 * 1-based line and column of a UTF-16 offset.
 *
 * @example
 * lineColumn('{\n  "a": }', 9); // { line: 2, column: 8 }
 */
export function lineColumn(text: string, offset: number): {
  line: number;
  column: number;
} {
  if (stryMutAct_9fa48("1505")) {
    {}
  } else {
    stryCov_9fa48("1505");
    let line = 1;
    let lineStart = 0;
    for (let i = 0; stryMutAct_9fa48("1507") ? i < offset || i < text.length : stryMutAct_9fa48("1506") ? false : (stryCov_9fa48("1506", "1507"), (stryMutAct_9fa48("1510") ? i >= offset : stryMutAct_9fa48("1509") ? i <= offset : stryMutAct_9fa48("1508") ? true : (stryCov_9fa48("1508", "1509", "1510"), i < offset)) && (stryMutAct_9fa48("1513") ? i >= text.length : stryMutAct_9fa48("1512") ? i <= text.length : stryMutAct_9fa48("1511") ? true : (stryCov_9fa48("1511", "1512", "1513"), i < text.length))); stryMutAct_9fa48("1514") ? i-- : (stryCov_9fa48("1514"), i++)) {
      if (stryMutAct_9fa48("1515")) {
        {}
      } else {
        stryCov_9fa48("1515");
        if (stryMutAct_9fa48("1518") ? text[i] !== "\n" : stryMutAct_9fa48("1517") ? false : stryMutAct_9fa48("1516") ? true : (stryCov_9fa48("1516", "1517", "1518"), text[i] === (stryMutAct_9fa48("1519") ? "" : (stryCov_9fa48("1519"), "\n")))) {
          if (stryMutAct_9fa48("1520")) {
            {}
          } else {
            stryCov_9fa48("1520");
            stryMutAct_9fa48("1521") ? line-- : (stryCov_9fa48("1521"), line++);
            lineStart = stryMutAct_9fa48("1522") ? i - 1 : (stryCov_9fa48("1522"), i + 1);
          }
        }
      }
    }
    return stryMutAct_9fa48("1523") ? {} : (stryCov_9fa48("1523"), {
      line,
      column: stryMutAct_9fa48("1524") ? offset - lineStart - 1 : (stryCov_9fa48("1524"), (stryMutAct_9fa48("1525") ? offset + lineStart : (stryCov_9fa48("1525"), offset - lineStart)) + 1)
    });
  }
}