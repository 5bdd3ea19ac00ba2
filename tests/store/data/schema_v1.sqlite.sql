-- A Sparrow database of schema version 1 (before migrations), made by that build; see test_migrations.py.
-- From sqlite3's iterdump, with the FTS5 index declared by its CREATE statement instead of raw shadow tables.
BEGIN TRANSACTION;
CREATE TABLE events (
	session_id VARCHAR(64) NOT NULL, 
	seq INTEGER NOT NULL, 
	run_id VARCHAR(64) NOT NULL, 
	type VARCHAR(40) NOT NULL, 
	ts FLOAT NOT NULL, 
	payload TEXT NOT NULL, 
	PRIMARY KEY (session_id, seq), 
	FOREIGN KEY(session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
INSERT INTO "events" VALUES('ses_603df57fe6854e75',1,'run_done','run_started',1.5,'{"type":"run_started","run_id":"run_done","ts":1.5,"question":"¿Qué día es? 今天星期几？ \"quoted\" \\ back","model":"m","protocol":"tools","tools":[{"type":"function","function":{"name":"calc","parameters":{"type":"object"}}}],"settings":{"max_steps":3,"time_limit":null,"nested":{"a":[1,2.5,null,true]}}}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',2,'run_done','step_started',2.0,'{"type":"step_started","run_id":"run_done","ts":2.0,"step":1,"offered_tools":["calc","clock"]}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',3,'run_done','model_finished',2.2,'{"type":"model_finished","run_id":"run_done","ts":2.2,"step":1,"model":"m","text":"call calc","reasoning":"think","thought":"I will call","tool_calls":[{"id":"c1","name":"calc","arguments":"{\"x\": 1}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"latency_ms":12.25,"ttft_ms":null,"finish_reason":"tool_calls","messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}],"messages_kept":0}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',4,'run_done','tool_started',2.3,'{"type":"tool_started","run_id":"run_done","ts":2.3,"step":1,"call_id":"c1","tool":"calc","arguments":{"x":1}}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',5,'run_done','tool_finished',2.4,'{"type":"tool_finished","run_id":"run_done","ts":2.4,"step":1,"call_id":"c1","tool":"calc","output":"1","details":{"links":[{"url":"https://example.org","title":"ex"}],"deep":{"a":{"b":{"c":[[]]}}}},"error":null,"duration_ms":0.5,"truncated":true}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',6,'run_done','approval_requested',2.41,'{"type":"approval_requested","run_id":"run_done","ts":2.41,"step":1,"call_id":"c2","tool":"shell","arguments":{"cmd":"ls"}}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',7,'run_done','approval_decided',2.42,'{"type":"approval_decided","run_id":"run_done","ts":2.42,"step":1,"call_id":"c2","tool":"shell","approved":false,"by":"policy"}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',8,'run_done','output_flagged',2.43,'{"type":"output_flagged","run_id":"run_done","ts":2.43,"step":1,"source":"tool_output","findings":[{"kind":"api_key","label":"OpenAI key","masked":"sk-…1234"}],"call_id":"c1"}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',9,'run_done','run_resumed',2.5,'{"type":"run_resumed","run_id":"run_done","ts":2.5,"from_step":2}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',10,'run_done','final_answer',2.6,'{"type":"final_answer","run_id":"run_done","ts":2.6,"step":2,"text":"one"}');
INSERT INTO "events" VALUES('ses_603df57fe6854e75',11,'run_done','run_finished',2.7,'{"type":"run_finished","run_id":"run_done","ts":2.7,"status":"completed","final_answer":"one","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"duration_ms":0.0}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',1,'run_done','run_started',1.5,'{"type":"run_started","run_id":"run_done","ts":1.5,"question":"¿Qué día es? 今天星期几？ \"quoted\" \\ back","model":"m","protocol":"tools","tools":[{"type":"function","function":{"name":"calc","parameters":{"type":"object"}}}],"settings":{"max_steps":3,"time_limit":null,"nested":{"a":[1,2.5,null,true]}}}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',2,'run_done','step_started',2.0,'{"type":"step_started","run_id":"run_done","ts":2.0,"step":1,"offered_tools":["calc","clock"]}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',3,'run_done','model_finished',2.2,'{"type":"model_finished","run_id":"run_done","ts":2.2,"step":1,"model":"m","text":"call calc","reasoning":"think","thought":"I will call","tool_calls":[{"id":"c1","name":"calc","arguments":"{\"x\": 1}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"latency_ms":12.25,"ttft_ms":null,"finish_reason":"tool_calls","messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}],"messages_kept":0}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',4,'run_done','tool_started',2.3,'{"type":"tool_started","run_id":"run_done","ts":2.3,"step":1,"call_id":"c1","tool":"calc","arguments":{"x":1}}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',5,'run_done','tool_finished',2.4,'{"type":"tool_finished","run_id":"run_done","ts":2.4,"step":1,"call_id":"c1","tool":"calc","output":"1","details":{"links":[{"url":"https://example.org","title":"ex"}],"deep":{"a":{"b":{"c":[[]]}}}},"error":null,"duration_ms":0.5,"truncated":true}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',6,'run_done','approval_requested',2.41,'{"type":"approval_requested","run_id":"run_done","ts":2.41,"step":1,"call_id":"c2","tool":"shell","arguments":{"cmd":"ls"}}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',7,'run_done','approval_decided',2.42,'{"type":"approval_decided","run_id":"run_done","ts":2.42,"step":1,"call_id":"c2","tool":"shell","approved":false,"by":"policy"}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',8,'run_done','output_flagged',2.43,'{"type":"output_flagged","run_id":"run_done","ts":2.43,"step":1,"source":"tool_output","findings":[{"kind":"api_key","label":"OpenAI key","masked":"sk-…1234"}],"call_id":"c1"}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',9,'run_done','run_resumed',2.5,'{"type":"run_resumed","run_id":"run_done","ts":2.5,"from_step":2}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',10,'run_done','final_answer',2.6,'{"type":"final_answer","run_id":"run_done","ts":2.6,"step":2,"text":"one"}');
INSERT INTO "events" VALUES('ses_3f26f225a7114a00',11,'run_done','run_finished',2.7,'{"type":"run_finished","run_id":"run_done","ts":2.7,"status":"completed","final_answer":"one","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"duration_ms":0.0}');
INSERT INTO "events" VALUES('ses_831a046f14c54efe',1,'run_cut','run_started',10.0,'{"type":"run_started","run_id":"run_cut","ts":10.0,"question":"What is 6*7?","model":"m","protocol":"react","tools":[],"settings":{}}');
INSERT INTO "events" VALUES('ses_831a046f14c54efe',2,'run_cut','step_started',10.5,'{"type":"step_started","run_id":"run_cut","ts":10.5,"step":1,"offered_tools":["calculator"]}');
CREATE TABLE memories (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	scope VARCHAR(64) NOT NULL, 
	text TEXT NOT NULL, 
	text_hash VARCHAR(64) NOT NULL, 
	origin VARCHAR(16) NOT NULL, 
	source_session_id VARCHAR(64), 
	created_at FLOAT NOT NULL, 
	UNIQUE (scope, text_hash)
);
INSERT INTO "memories" VALUES(1,'default','The user prefers green tea over coffee','c851b5d9261e665b7e97e98de58c02de422ea7fc6cf7a05d15ead94b3ad50aac','user','ses_603df57fe6854e75',1.79608609716485333445e+09);
INSERT INTO "memories" VALUES(2,'default','用户住在上海，喜欢喝龙井茶','358a26fa4901877b86734903a5df2117e081f15c6f4a26433f07b256b4941750','user',NULL,1.79608609716775345808e+09);
INSERT INTO "memories" VALUES(3,'alice','The user works on AI safety in Berlin','d89eb50ef8876afecc54722fbb1a5a5f7f5a1e8376b45b246cd13b1037c51ca6','user',NULL,1.7960860971715016365e+09);
CREATE VIRTUAL TABLE memories_fts USING fts5(text, content='memories', content_rowid='id', tokenize='trigram');
CREATE TABLE sessions (
	id VARCHAR(64) NOT NULL, 
	title VARCHAR(200), 
	created_at FLOAT NOT NULL, 
	updated_at FLOAT NOT NULL, 
	last_seq INTEGER NOT NULL, 
	config JSON NOT NULL, 
	parent_id VARCHAR(64), 
	forked_from VARCHAR(64), 
	PRIMARY KEY (id), 
	FOREIGN KEY(parent_id) REFERENCES sessions (id) ON DELETE SET NULL
);
INSERT INTO "sessions" VALUES('ses_603df57fe6854e75','¿Qué día es? 今天星期几？ "quoted" \ back',1.79608609713264679905e+09,1.79608609714929986006e+09,11,'{"model": "m", "base_url": null, "protocol": "tools", "settings": {"max_steps": 3}}',NULL,NULL);
INSERT INTO "sessions" VALUES('ses_3f26f225a7114a00','¿Qué día es? 今天星期几？ "quoted" \ back (before more)',1.79608609715840673447e+09,1.79608609715840673447e+09,11,'{"model": "m", "base_url": null, "protocol": "tools", "settings": {"max_steps": 3}}','ses_603df57fe6854e75','snap_edea2d6c776848dd');
INSERT INTO "sessions" VALUES('ses_831a046f14c54efe','half way',1.79608609716069912917e+09,1.79608609716138577466e+09,2,'{"model": "", "base_url": null, "protocol": "react", "settings": {}}',NULL,NULL);
CREATE TABLE snapshots (
	id VARCHAR(64) NOT NULL, 
	session_id VARCHAR(64) NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	created_at FLOAT NOT NULL, 
	upto_seq INTEGER NOT NULL, 
	title VARCHAR(200), 
	config JSON NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (session_id, name), 
	FOREIGN KEY(session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
INSERT INTO "snapshots" VALUES('snap_edea2d6c776848dd','ses_603df57fe6854e75','before more',1.79608609715483331674e+09,11,'¿Qué día es? 今天星期几？ "quoted" \ back','{"model": "m", "base_url": null, "protocol": "tools", "settings": {"max_steps": 3}}');
CREATE TABLE sparrow_schema (
	id INTEGER NOT NULL, 
	version INTEGER NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "sparrow_schema" VALUES(1,1);
CREATE INDEX ix_sessions_updated_at ON sessions (updated_at);
CREATE INDEX ix_memories_source_session_id ON memories (source_session_id);
CREATE INDEX ix_memories_scope_created ON memories (scope, created_at);
CREATE INDEX ix_snapshots_session_id ON snapshots (session_id);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF text ON memories BEGIN INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text); INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text); END;
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('memories',3);
INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
COMMIT;
