// Reads a CS:GO demo with the npm `demofile` package (saul/demofile, an independent
// parser) and prints what it saw as one JSON object: the players (entity index, user id,
// name, SteamID, bot), the deaths (tick, victim's and attacker's user ids) and, after
// every tick, each player's entity index and position. `tests/source/demofile.rs` runs it
// (node with NODE_PATH pointing at a node_modules that holds `demofile`).
"use strict";
const fs = require("fs");
const { DemoFile } = require("demofile");

const demo = new DemoFile();
const deaths = [];
const positions = [];
demo.gameEvents.on("player_death", (e) => {
  deaths.push([demo.currentTick, e.userid, e.attacker]);
});
demo.on("tickend", (tick) => {
  const players = demo.entities.players
    .filter((p) => p.props && p.props.DT_BaseEntity)
    .map((p) => {
      const o = p.position;
      return [p.index, o.x, o.y, o.z];
    });
  positions.push([tick, players]);
});
demo.on("end", (e) => {
  if (e.error) {
    console.error(String(e.error));
    process.exit(1);
  }
  const players = demo.players.map((p) => ({
    index: p.index,
    user_id: p.userId,
    name: p.name,
    steam_id: p.steamId,
    bot: p.isFakePlayer,
  }));
  process.stdout.write(JSON.stringify({ players, deaths, positions }));
});
demo.parse(fs.readFileSync(process.argv[2]));
